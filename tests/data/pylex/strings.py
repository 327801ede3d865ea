# String literals: every prefix, both quotes, triple quotes, escapes.
a = 'single'
b = "double"
c = ''
d = ""
e = 'it\'s'
f = "say \"hi\""
g = r"\"" + r'\'' + R"\d+\.\d*"
h = b'bytes' + B"BYTES" + br'\x00' + Br"x" + bR'y' + BR"z"
i = rb"raw bytes" + rB'x' + Rb"y" + RB'z'
j = u"unicode" + U'UNICODE'
k = '''triple
single "quoted" with 'inner' and '' two
'''
l = """triple "double" ""inner"" \""" still
going"""
m = 'backslash \
newline continues'
n = """ends with an escaped quote \""""
o = 'tab\tnew\nline\\' "adjacent" 'concatenation'
p = r'raw \
still raw'
q = "\N{BULLET} \u00e9 \x41 \101 \0"
s = ("implicit"
     "concatenation"
     'across lines')
t = """"four quotes start"""
u = ''''''
v = """"""
w = "#not a comment" # a comment
x = '{not a field}' "{{neither}}"
y = b"\\" rb"\\\\"; y2 = r"\\"
z = ['', "", '''''', """""", b'', r'']
