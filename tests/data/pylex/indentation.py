# Indentation, dedents, blank and comment lines.
import os


class A:
    """Doc."""

    def f(self):
        if self:
            return 1
        # comment at the block's level
      # comment at an odd level
# comment at column zero
        elif not self:
            for i in range(3):
                while i:
                    i -= 1
                else:
                    pass
            return 2

    def g(self): return 3

        
def h():
    try:
        pass
    except Exception:
        raise
    finally:
        x = [
  1,
        ]
    return x
if True:
    if True:
        if True:
            pass
x = 1
async def k():
    async with a as b:
        await b
    async for c in b:
        yield c
match x:
    case 1:
        pass
    case _:
        pass
