# Ends in whitespace without a line break.
if x:
    y = 1
    