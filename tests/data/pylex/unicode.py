# Non-ASCII identifiers, strings and comments: columns are bytes.
café = 1
naïve_größe = café + 1  # ein Kommentar mit Umlauten: äöü
π = 3.14159; τ = 2 * π
变量 = "中文字符串"; другой = 'кириллица'
s = f"{café}→{π:.2f} {'日本語'} ✓"
t = "emoji 🎉 " + f"{变量!r} 🎉 {naïve_größe}"
def ƒ(α, β=π):
    return α * β  # ∑
class Ñandú:
    ü = "ü"
x = [café, π, τ]; y = ƒ(π, β=τ) if Ñandú.ü else 变量
