# f-strings, tokenized the 3.12 way (PEP 701).
name, width, prec, x, y = "n", 10, 3, 1.5, 2
d = {"k": 1, 'q': 2}
items = [1, 2, 3]
a = f"plain"
b = f"{name}"
c = f"hello {name}!"
e = f"{x!r} {x!s} {x!a}"
g = f"{x=}" f"{x = }" f"{x=!r:>10}"
h = f"{x:>{width}.{prec}}"
i = f"{x:{width}}" f"{x:}" f"{x:{{width}}}"
j = f"{{literal}} {{{name}}} }}{{"
k = F"{d['k']}" + Fr'{d["q"]}' + rf"\d{x}" + fR"{x}\d" + RF'{x}' + Rf"{x}"
l = f"{f'{name}'}" f'{f"{f'{x}'}"}'
m = f"{d["k"]}" f"{"nested same quotes"}"
n = f"{ {'a': 1}['a'] } {[i for i in items if i > 1]} {(lambda v: v * 2)(x)}"
o = f"{x if x > 1 else y} {x:=^{width}} {(x := 5)}"
p = f"""multi
line {name}
  {x
   + y:>{width}}
end"""
q = f'''{
    name
}''' f"""{"""inner triple"""}"""
r = f"\N{BULLET} {x} \N{EM DASH}" rf"\N{x}"
s = rf"a\{x}" f"\\{x}" f"\n{x}\t"
t = f"{x:%Y-%m-%d %H:%M}" f"{x:.2f}" f"{x:,}" f"{x:#x}"
u = f"{'{'}" f"{'}'}" f"{x!r:^20}" f"{x:{'>'}{width}}"
v = f"{x}{y}{name}" f"{x}" "plain {x}" f""
w = f"{x:{width}.{prec}f}" f'{x:{"w"}}'
z = (f"implicit {x}"
     f"concatenation {y}"
     "mixed")
aa = f"{x # a comment inside a field
}" f"{x:{y}}}}" f"{x!r:{width}x}"
ab = f"{d['k']:>{width}} {items[1:2]} {items[::2]} {x:{y}{prec}}"
ac = f'{"a" "b"}' f"{[*items]}" f"{x:{{y}}}" f"{items[0]=}"
