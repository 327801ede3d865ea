# Numeric literals.
a = [0, 1, 42, 1_000_000, 00, 0_0, 000]
b = [0x1F, 0X_ff, 0xdead_beef, 0o17, 0O_7, 0b1010, 0B_1_0]
c = [1.5, .5, 5., 1e10, 1E-5, 1e+5, 1.5e-3, 1_000.5e-3, 0.0, 0e0, 09.5, 0123.5]
d = [1j, 1J, 1.5j, .5j, 5.j, 1e3j, 1_000.5e-3j, 012j, 0j, 0.j]
e = [1 .real, 1..real, 1.5.real, x.y if 1 else 2]
g = [-1, +2, ~3, 2**-1, 1-1, 1e5-1, 1.e5, 1_2.3_4e5_6, 1E5J]
h = 0xFF if False else 0
