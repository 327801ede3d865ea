# Hostile text reaches no terminal: a repository whose file names carry
# escape sequences (set the title, clear the screen), C1 controls (raw and
# in UTF-8), invalid UTF-8 and a bidi override; notes with the same; an
# imported table with escapes in its notes; a journal row written by another
# tool (sqlite3). scan, probe, notes, tables show, runs, report (md to
# stdout, md, html and json to files) and --json output must hold none of
# those bytes, while a plain UTF-8 name ("café_模型.py") survives intact.
# `mtrial run` passes the command's own output through raw (its own
# terminal); the lines it says itself are filtered.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

ESC=$'\033'
TITLE="$ESC]0;pwned"$'\007'
CLEAR="$ESC[2J"
C1=$'\xc2\x9b'          # U+009B (CSI) in UTF-8
RAW=$'\x9b'             # CSI as one raw byte: invalid UTF-8
RLO=$'\xe2\x80\xae'     # RIGHT-TO-LEFT OVERRIDE
NICE=$'caf\xc3\xa9_\xe6\xa8\xa1\xe5\x9e\x8b.py'

# clean DESCRIPTION FILE: FILE holds no control but \t \n (\r before \n),
# no C1 (raw or UTF-8), no bidi control, only valid UTF-8.
clean() {
	if python3 - "$2" <<'PY'; then ok; else bad "$1: unsafe bytes in the output (above)"; fi
import re, sys
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"invalid UTF-8 at byte {e.start}: {data[max(0, e.start - 20):e.start + 5]!r}", file=sys.stderr)
    sys.exit(1)
bad = re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\r(?!\n)", text)
if bad:
    print(f"{bad.group()!r} at {bad.start()}: {text[max(0, bad.start() - 30):bad.start() + 10]!r}", file=sys.stderr)
    sys.exit(1)
PY
}
# mt_clean EXPECTED_STATUS ARGS...: run_mt, then both streams clean.
mt_clean() {
	run_mt "$@"
	clean "mtrial ${*:2} (stdout)" "$T_TMP/out"
	clean "mtrial ${*:2} (stderr)" "$T_TMP/err"
}

R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
body='import torch
import torch.nn as nn
emb = nn.Embedding(10, 4)
x = torch.ones(3)
'
for name in "evil${TITLE}${CLEAR}.py" "c1${C1}2J.py" "raw${RAW}2J.py" "bidi${RLO}yp.txt.py" \
	"line"$'\n'"break.py" "$NICE"; do
	printf '%s' "$body" >"$R/$name"
done
git -C "$R" add -A && git -C "$R" commit -qm init
cd "$R" || exit 1
run_mt 0 init --name hostile

mt_clean 0 scan --no-cache
mt_clean 0 scan --no-cache --json
eq "$(json "sorted(f for f in {c['file'] for c in j['calls']} if f.startswith('caf'))")" "['$NICE']" \
	"the UTF-8 name survives in JSON"
# the names with escapes are still there, \u-escaped: JSON output keeps the data
eq "$(json "any(f.startswith('evil\x1b]0;pwned\x07') for f in {c['file'] for c in j['calls']})")" True \
	"JSON keeps the name, escaped"

mt_clean 1 probe --table torch-neuron-inf1
has "$NICE:3" "$OUT" "the UTF-8 name survives in text"
has "evil?]0;pwned??[2J.py:3" "$OUT" "escapes shown as '?'"
has "c1?2J.py:3" "$OUT" "C1 in UTF-8 shown as '?'"
has "bidi?yp.txt.py:3" "$OUT" "the bidi override shown as '?'"
has "line break.py:3" "$OUT" "a line break in a name shown as a space"
# a name that is not UTF-8 (a raw C1 byte) is kept in the record as U+FFFD,
# which the probe reads back (it could not read the scan before)
mt_clean 1 probe --table torch-neuron-inf1 --json
eq "$(json "sum(l['file'] == 'raw\ufffd2J.py' for o in j['ops'] for l in o['locations'])")" 2 \
	"the name that is not UTF-8, in the record"

# notes: escapes in the text, a track and a tag; a note whose second line
# poses as another note's header stays indented under its own
mt_clean 0 note --tag "x${CLEAR}" "title${TITLE} clear${CLEAR} c1${C1} rlo${RLO} end"
printf 'first line\n#99  2026-01-01T00:00:00Z fake header\n' | "$MTRIAL" note - >/dev/null
sqlite3 .mtrial/journal.db "INSERT INTO notes (created_ms, track, text) VALUES (1,
  'other${ESC}[31m', CAST(X'6279206f7468657220746f6f6c3a201b5d303b7469746c6507209b326a20c29b' AS TEXT))"
mt_clean 0 notes
has "title?]0;pwned? clear?[2J c1? rlo? end" "$OUT" "the note, made safe"
has "#x?[2J" "$OUT" "the tag, made safe"
has "[other?[31m]" "$OUT" "a track written by another tool, made safe"
has "      #99  2026-01-01T00:00:00Z fake header" "$OUT" "a note's second line is indented"
hasnt $'\n#99 ' "$OUT" "no line of a note passes for a header"
has "by other tool: ?]0;title? ?2j ?" "$OUT" "a note committed by another tool, made safe"
mt_clean 0 notes --json
# the note another tool wrote is not UTF-8: it stays in the JSON (U+FFFD)
# instead of vanishing from it
eq "$(json "[n['text'][:5] for n in j]")" "['title', 'first', 'by ot']" \
	"every note in the JSON, the one that is not UTF-8 too"
eq "$(json "j[0]['text']")" "$(printf 'title%s clear%s c1%s rlo%s end' "$TITLE" "$CLEAR" "$C1" "$RLO")" \
	"JSON gives the note as it was written"

# a control after a long plain run: the output's plain start is found 16
# bytes at a time, so the control sits at each place in a block of 16
for k in 15 16 17 31 32 33 47; do
	a=$(printf '%*s' "$k" '' | tr ' ' a)
	mt_clean 0 note "${a}${CLEAR}${a}"$'\x7f'"${a}${C1}${a}${TITLE}${a}"
	hasnt "$ESC" "$OUT" "a control after $k plain bytes is not printed"
done
mt_clean 0 notes
hasnt "$ESC" "$OUT" "nor in the notes after long plain runs"
has "aaaaaaaaaaaaaaa?[2Jaaaaaaaaaaaaaaa?aaaaaaaaaaaaaaa?aaaaaaaaaaaaaaa?]0;pwned?aaaaaaaaaaaaaaa" "$OUT" \
	"each control made safe in place"

# a table file whose YAML escapes make real control characters, and an
# import of a Markdown table with them
cat >"$T_TMP/hostile.yaml" <<'YAML'
schema: mtrial-compat/1
name: "hostile\e]0;pwned\a"
backend: test
version: "1\e[2J"
kind: documented
source: {url: "https://example.com/\u202emine"}
retrieved: 2026-11-01
ops:
  aten::embedding:
    status: unsupported
    notes: "fine\e]0;pwned\a\e[2J c1\u009b rlo\u202e end"
  aten::ones:
    status: device
YAML
mt_clean 0 tables show "$T_TMP/hostile.yaml"
has "hostile?]0;pwned?: test 1?[2J" "$OUT" "the table's name and version, made safe"
has "https://example.com/?mine" "$OUT" "the table's source, made safe"
mt_clean 0 tables show "$T_TMP/hostile.yaml" --json
mt_clean 1 probe --table "$T_TMP/hostile.yaml"
printf '| ATen Op | Supported? | Notes |\n|---|---|---|\n| aten::add | Yes | fine%s%s |\n' \
	"$TITLE" "$CLEAR" >"$T_TMP/ops.md"
mt_clean 0 tables import "$T_TMP/ops.md" --as hostile
mt_clean 0 tables show hostile
mt_clean 0 tables list

# a run row written by another tool: its label and command
sqlite3 .mtrial/journal.db "INSERT INTO runs (created_ms, system, label, origin, command, log, status,
  started_ms, ended_ms) VALUES (1, 'baseline', 'lab${TITLE}', 'import', 'cmd${CLEAR}', 'x.log',
  'failed', 1, 2)"
mt_clean 0 runs
mt_clean 0 runs show 1

# the report: Markdown on stdout and in a file, HTML and JSON in files; a
# note cannot make a link or an image in the Markdown, "[WIP]" stays as is
printf '[WIP] see [here](https://evil.example) ![x](https://evil.example/x.png)' | "$MTRIAL" note - >/dev/null
"$MTRIAL" note '[WIP] alone' >/dev/null
mt_clean 0 report --format md
has '\[WIP] see \[here](https://evil.example) !\[x](https://evil.example/x.png)' "$OUT" "no link in the Markdown"
has '[WIP] alone' "$OUT" "brackets that make no link are left alone"
has "title?]0;pwned? clear?[2J" "$OUT" "the note in the Markdown report"
for f in md html json; do
	mt_clean 0 report --format $f -o "$T_TMP/report.$f"
	clean "report.$f" "$T_TMP/report.$f"
done

# mtrial run: the command's own output is its own, passed through raw
cat >"$T_TMP/train.sh" <<'SH'
#!/bin/sh
printf 'mtrial:step=1 loss=2.5 \033[1mbold\033[0m\n'
SH
chmod +x "$T_TMP/train.sh"
run_mt 0 run --label "l${TITLE}" -- "$T_TMP/train.sh"
has "${ESC}[1mbold" "$OUT" "the command's output passed through raw"
clean "mtrial run's own lines" "$T_TMP/err"
mt_clean 0 runs show 2

# the filter keeps a character cut across two writes whole (a 64 KiB line)
python3 -c "print('\u00e9' * 40000)" >"$T_TMP/long"
mt_clean 0 note - <"$T_TMP/long"
mt_clean 0 notes
has "$(python3 -c "print('\u00e9' * 40000)")" "$OUT" "a long UTF-8 note intact"
# plain ASCII first (written as it is), then characters cut at stdio's
# buffer edges and an escape, which the sanitiser still sees
python3 -c "print('a' * 8191 + '\u00e9' * 5000 + '\x1b[31m' + '\u00fc' * 4000)" >"$T_TMP/mixed"
mt_clean 0 note - <"$T_TMP/mixed"
mt_clean 0 notes
has "$(python3 -c "print('a' * 8191 + '\u00e9' * 5000 + '?[31m' + '\u00fc' * 4000)")" "$OUT" \
	"a plain start, cut characters and an escape after it: intact, the escape shown as ?"

finish
