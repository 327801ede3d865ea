# Ends in a comment without a line break.
if x:
    y = 1
    # trailing