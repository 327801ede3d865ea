import torch as t

# strings and comments never count: torch.fake(1) t.fake(2)
s1 = "t.zeros(3)"
s2 = 't.ones(4)'
s3 = """
t.rand(5)
"""
s4 = r'\'t.randn(6)'
s5 = b"t.empty(7)"
s6 = rb'''t.full(8)'''
width = 5
f1 = f"{t.zeros(1).shape} {{t.not_a_call(2)}} {t.ones(2)!r:>{width}}"
f2 = f'''{
    t.arange(3)
}'''
f3 = f"{'nested ' + f'{t.eye(2)}'}"
x = t.tensor([1, 2, 3]) \
    .float()
y = (t
     .linspace(0, 1, 5))
z = [t.sin(v) for v in x] + [t.cos(x)]
w = {k: t.exp(v) for k, v in {"a": x}.items()}
lam = lambda q: t.tanh(q)  # noqa: E731
if t.cuda.is_available(): dev = t.device("cuda")
a = t.matmul(x, x); b = t.add(a, 1)
print(t.__version__, t.float64)
u = 1_000.5e-3j
