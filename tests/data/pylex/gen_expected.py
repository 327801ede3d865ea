#!/usr/bin/env python3
"""Writes the expected token stream of each Python input next to it, as the
reference for tests/unit/test_pylex.c (the differential test of python/pylex.c).

    python3.12 tests/data/pylex/gen_expected.py tests/data/pylex/*.py

For every X.py this writes X.tokens: one token per line,

    KIND LINE COL END_LINE END_COL

as CPython's tokenize module reports them (ENCODING left out), with columns
converted from characters to UTF-8 bytes, since pylex's columns are byte
offsets like ast.col_offset. It needs Python 3.12 or later: earlier tokenize
modules return an f-string as one STRING token.

Adjustments, each because tokenize and pylex describe the same thing
differently (they never hide a disagreement about where a token is):
  - The source is handed to tokenize with lone CR line endings turned into LF:
    compile() accepts a lone CR as a line break but tokenize's readline
    interface does not split lines there. CR and LF are both one byte, so no
    position moves.
  - The empty NEWLINE or NL that tokenize makes for a last line without a line
    break ends one column after it starts; pylex gives it length 0, so its end
    is its start.
  - For a token spanning lines (triple-quoted strings, f-string text), the end
    comes from the token's own text: CPython 3.12.1 reports a wrong end column
    when that last line holds non-ASCII characters (3.13 fixes this).

Every input must also compile, so the corpus stays valid Python.
"""
import io
import re
import sys
import tokenize


def byte_col(lines, row, col):
    """Character column `col` of 1-based line `row` as a byte column."""
    if row - 1 >= len(lines):
        return col
    return len(lines[row - 1][:col].encode("utf-8"))


def expected(data):
    data = re.sub(rb"\r(?!\n)", b"\n", data)
    text = data.decode("utf-8-sig")
    compile(text, "<corpus>", "exec")
    lines = [line + "\n" for line in text.split("\n")]
    out = []
    for tok in tokenize.tokenize(io.BytesIO(data).readline):
        if tok.type == tokenize.ENCODING:
            continue
        (srow, scol), (erow, ecol) = tok.start, tok.end
        scol, ecol = byte_col(lines, srow, scol), byte_col(lines, erow, ecol)
        if tok.string == "" and tok.type in (tokenize.NEWLINE, tokenize.NL):
            erow, ecol = srow, scol
        elif "\n" in tok.string and tok.type not in (tokenize.NEWLINE, tokenize.NL):
            erow = srow + tok.string.count("\n")
            ecol = len(tok.string.rsplit("\n", 1)[1].encode("utf-8"))
        out.append(f"{tokenize.tok_name[tok.type]} {srow} {scol} {erow} {ecol}\n")
    return out


def main(paths):
    if sys.version_info < (3, 12):
        sys.exit("gen_expected.py needs Python 3.12+ (f-strings as FSTRING_* tokens)")
    version = ".".join(map(str, sys.version_info[:3]))
    for path in paths:
        with open(path, "rb") as f:
            toks = expected(f.read())
        out = path[: -len(".py")] + ".tokens"
        with open(out, "w", newline="\n") as f:
            f.write(f"# tokenize of {path.rsplit('/', 1)[-1]} by CPython {version}: "
                    "kind line col end_line end_col (byte columns)\n")
            f.writelines(toks)
        print(f"{out}: {len(toks)} tokens")


if __name__ == "__main__":
    main(sys.argv[1:])
