# The HTML report as a browser shows it: headless Chromium opens the report
# of the fixed trial (tests/data/report/fixture.sh) from a file, takes a
# 1280x2000 screenshot, which must be a real page (not blank: many
# non-white pixels and colours) with the verdict's box on the first screen,
# and dumps the DOM it built, which must hold the seven SVG charts with their
# lines and bars. Skipped, saying so, only where no Chromium is installed
# (scripts/install-deps installs it).
. "$MT_SOURCE_DIR/tests/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	echo "report_html: no chromium on PATH (scripts/install-deps installs it); the page was not rendered"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
. "$MT_SOURCE_DIR/tests/data/report/fixture.sh"
fixture_trial || { bad "the fixture trial could not be built"; finish; exit 1; }
run_mt 0 report --format html -o "$T_TMP/report.html"

# chromium FLAGS...: headless, a private profile, at most two minutes (two
# shared cores can make it slow)
chromium() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T_TMP/profile" --window-size=1280,2000 "$@" "file://$T_TMP/report.html" \
		2>>"$T_TMP/chromium.err"
}

chromium --screenshot="$T_TMP/shot.png" >/dev/null
check "chromium wrote a screenshot" test -s "$T_TMP/shot.png"
[ -s "$T_TMP/shot.png" ] || tail -5 "$T_TMP/chromium.err" >&2

# The verdict box's background, by the verdict's class (summary.html's CSS).
class=$(grep -o '<section class="verdict [a-z-]*"' "$T_TMP/report.html" | sed 's/.*verdict \([a-z-]*\)"/\1/')
case "$class" in
go) bg="239 250 242" ;; no-go) bg="253 241 240" ;; conditions) bg="255 248 229" ;; *) bg="246 248 250" ;;
esac
cat >"$T_TMP/png.py" <<'PY'
# Decodes an 8-bit RGB(A) PNG with zlib and prints: width height, the share
# of non-white pixels, the number of distinct colours, and the first row
# where the colour given as R G B appears (-1: nowhere).
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
    elif kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, nonwhite, colours, want, found = bytearray(stride), 0, set(), bytes(map(int, sys.argv[2:5])), -1
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        colours.add(px)
        nonwhite += px != b"\xff\xff\xff"
        if found < 0 and px == want:
            found = y
    prev = line
print(w, h, "%.3f" % (nonwhite / (w * h)), len(colours), found)
PY
if [ -s "$T_TMP/shot.png" ]; then
	# shellcheck disable=SC2086 # $bg is three numbers
	read -r w h share colours verdict_row < <("$PY" "$T_TMP/png.py" "$T_TMP/shot.png" $bg)
	eq "${w}x$h" 1280x2000 "the screenshot has the window's size"
	check "the page is not blank (non-white share $share)" "$PY" -c "import sys; sys.exit(not $share > 0.05)"
	check "text, charts and tables drawn ($colours colours)" test "$colours" -gt 100
	check "the verdict ($class) is on the first screen (row $verdict_row)" test "$verdict_row" -ge 0 -a "$verdict_row" -lt 800
fi

# The DOM the browser built: the charts are there, drawn, not placeholders.
chromium --dump-dom >"$T_TMP/dom.html"
DOM=$(cat "$T_TMP/dom.html")
eq "$(grep -o '<svg ' "$T_TMP/dom.html" | wc -l)" 7 "seven SVG charts in the rendered DOM"
eq "$(grep -o '<polyline ' "$T_TMP/dom.html" | wc -l)" 13 "one quality line per attempt with evaluations (5), the break-even chart's 4 (two systems, the break-even, the trial's run length) and the two scaling charts' 2 each (each system at its one device count: a line of one point, and no linear line)"
has 'class="target"' "$DOM" "the target line is drawn"
check "bars are drawn" test "$(grep -o '<rect class="bar"' "$T_TMP/dom.html" | wc -l)" -ge 8
hasnt 'class="no-data"' "$DOM" "no chart says it lacks data"
hasnt '<script' "$DOM" "no script in the page"
has "Quality versus time: eval_loss" "$DOM" "the quality chart's title"

# The main caveat once (not again in the list of caveats under it).
caveat=$(sed -n 's/.*<p class="caveat">Main caveat: \(.*\)<\/p>.*/\1/p' "$T_TMP/report.html")
check "there is a main caveat" test -n "$caveat"
eq "$(grep -cF -- "$caveat" "$T_TMP/report.html")" 1 "the main caveat is printed once"
# The model's `code` spans are marked up, not shown with their backticks.
"$PY" - "$T_TMP/report.html" >"$T_TMP/ticks" <<'PY'
import re, sys
body = open(sys.argv[1]).read().split("<body>", 1)[1]
print(len(re.findall("`", re.sub(r"<code>.*?</code>", "", body, flags=re.S))))
PY
eq "$(cat "$T_TMP/ticks")" 0 "no backtick outside <code> in the page"

# At 1280 px nothing is wider than the window, not even the runs table with
# a run whose name cannot break (an MLPerf result file's, say): cells wrap,
# and what cannot wrap scrolls inside its table. The browser measures the
# page: a copy of the report with a script that writes the widths into it.
"$MTRIAL" runs import "$L/base1.log" --system baseline --track portability \
	--label "result_0.nvidia_dgxa100_ngc24.04_pytorch_gpt3_175b_eval_loss_$(printf 'x%.0s' {1..60})" >/dev/null
run_mt 0 report --format html -o "$T_TMP/report.html"
sed 's|</body>|<script>addEventListener("load", function () { var p = document.createElement("pre"); p.id = "widths"; p.textContent = "page " + document.documentElement.scrollWidth + " window " + document.documentElement.clientWidth; document.body.appendChild(p); });</script></body>|' \
	"$T_TMP/report.html" >"$T_TMP/measured.html"
widths=$(timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$T_TMP/profile" --window-size=1280,900 --virtual-time-budget=5000 --dump-dom \
	"file://$T_TMP/measured.html" 2>>"$T_TMP/chromium.err" | sed -n 's/.*<pre id="widths">\(.*\)<\/pre>.*/\1/p')
read -r _ page _ window <<<"$widths"
check "the page measured at 1280 px ($widths)" test -n "$page"
check "... no wider than the window (${page:-?} <= ${window:-?} px)" test "${page:-1}" -le "${window:-0}"

finish
