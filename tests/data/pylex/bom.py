# A UTF-8 byte order mark: columns on line 1 start after it.
x = 1
