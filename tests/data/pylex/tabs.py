# Tabs and form feeds in indentation.
if True:
	x = 1
	if x:
		y = 2
		z = [
	1,
			2]

if x:
	    a = 1
	    b = 2
c = 3
if c:
    d = 4
  e = 5
    
  f = 6  # ff before a comment
