# Explicit and implicit line continuation.
total = 1 + \
    2 + \
        3
if total > 1 and \
   total < 10:
    pass
values = [
    1,  # a comment inside brackets

    2,
        3,
  4]
call = dict(a=1,
            b=(2,
               3),
            c={
                "k": [
                    5,
                ],
            })
text = ("a"
        "b") ; other = 2
with open("f") as f, \
     open("g") as g:
    pass
def f(
    a,
    b=2,
    *args,
    **kwargs,
):
    return (a +
            b)
x = [i
     for i in range(3)
     if i]
assert x, \
    "message"
y = {1: 2,
     3: 4}[1]; z = 3 \
    + 4
