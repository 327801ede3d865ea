# Every operator and delimiter.
a = b + c - d * e / f // g % h ** i @ j
a += 1; a -= 1; a *= 1; a /= 1; a //= 1; a %= 1; a **= 1; a @= m
a &= 1; a |= 1; a ^= 1; a >>= 1; a <<= 1
b = (a & c) | (d ^ e) | ~f | (g << 2) | (h >> 3)
c = a < b <= c > d >= e == f != g
d = not a and b or c is not d in e not in f
e = lambda x, /, y=1, *args, z, **kw: x
def f(x: int, *, y: "str" = "") -> list[int]: ...
@decorator
@decorator.attr(arg)
class G(Base, metaclass=Meta): pass
if (n := len(a)) > 10: pass
h = a[1:2, ::3, ...]
i = {**a, 'b': 2}
j = [*a, *b]
k = a.b.c
l = a if b else c
m = ...
n = a[-1]; o = -a; p = +a
global q
del r
