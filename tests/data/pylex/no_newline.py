# No line break at the end of the file, inside a block.
def f():
    if True:
        return f"{1}"