#!/usr/bin/env bash
# The Ops & compatibility step runs a probe and browses it: with nothing
# probed it says what a probe gives and which key runs it; `p` asks for the
# table in a menu (the bundled tables and the user's) and records the probe;
# the table's name and date, the counts by status and the ops match what
# `mtrial report --format json` gives; `v` shows one status, `/` filters by
# text, Enter shows an op's call sites with their source; `r` records a team
# finding (`mtrial override` sees it) and probes again, so the op shows its
# new status and where it came from. At 60x16 and back, and with NO_COLOR.
. "$(dirname "$0")/lib/harness.bash"

for tool in git jq; do
	command -v "$tool" >/dev/null ||
		{ echo "$tool is needed" >&2; echo "0 passed, 1 failed"; exit 1; }
done

export XDG_CACHE_HOME=$T/cache XDG_DATA_HOME=$T/data
PRIVATE=(XDG_CACHE_HOME="$XDG_CACHE_HOME" XDG_DATA_HOME="$XDG_DATA_HOME")

# --- the fixture: an embedding (unsupported in torch-neuron-inf1), a where
# (partial there) and two adds (on the device).
git_q() { git -C "$REPO" -c user.name=t -c user.email=t@example.com "$@" >/dev/null; }
mkdir -p "$REPO"
cat >"$REPO/train.py" <<'EOF'
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)

    def forward(self, x, y):
        h = self.emb(x)
        h = torch.where(h > 0, h, y)
        h = torch.add(h, y)
        return torch.add(h, 1)
EOF
EMB_LINE=$(grep -n 'nn.Embedding' "$REPO/train.py" | cut -d: -f1)
ADD2_LINE=$(grep -n 'torch.add(h, 1)' "$REPO/train.py" | cut -d: -f1)
git init -q "$REPO"
git_q add -A
git_q commit -qm fixture
(cd "$REPO" && "$MTRIAL" init --repo "$REPO" --name ops-trial) >/dev/null

# The user's tables: one that loads, one that does not.
TABLES=$XDG_DATA_HOME/mtrial/tables
mkdir -p "$TABLES"
cat >"$TABLES/compat-team-trn1.yaml" <<'EOF'
schema: mtrial-compat/1
name: team-trn1
backend: torch-neuronx
version: "2.14.3 (the team's notes)"
device: neuron
kind: documented
source:
  url: https://example.com/team-notes
retrieved: 2026-09-01
default: unknown
rules: []
ops:
  aten::add:
    status: device
EOF
printf 'schema: mtrial-compat/1\nname: broken\nops: [\n' >"$TABLES/compat-broken.yaml"

start_shell 80 24 "${PRIVATE[@]}"
start_wizard
keys j
check "with no probe, the step says so" wait_for '│   Nothing probed yet\.$'
check "... what a probe gives" wait_for '│   A probe joins the scan.s ops with a compatibility'
check "... the key that runs it" wait_for 'Press p, or run'
check "... and that it needs a scan first" \
	wait_for '│   It needs a scan first: press s to scan the'
check "... the table it would use by default" \
	wait_for '│   table +torchneuron-2\.14 \(the default\)$'
keys p
check "p with nothing scanned says to scan first" \
	wait_for '^Nothing scanned yet: press s to scan the repository first$'

mt scan >/dev/null
check "a scan from another terminal: the step no longer asks for one" \
	wait_gone 'It needs a scan first'

# --- a probe with the menu of tables ------------------------------------------
keys p
check "p asks for the table in a menu" wait_for 'Probe the ops with which table\?'
for t in team-trn1 torch-neuron-inf1 torch-neuronx-training torchneuron-2.14; do
	check "... which lists $t with its date" wait_for "│ +>?[0-9] +${t//./\\.}  20[0-9-]+ +│"
done
check "... and a table that does not load, saying so" wait_for '[0-9] +broken \(does not load\)'
item() { screen | grep -oE "│ +[0-9] +$1[ (]" | grep -oE '[0-9]' | head -1; }
keys "$(item broken)"
check "a table that does not load: the error in the message line" \
	wait_for '^probe not run: .*compat-broken\.yaml'
check "... and nothing is recorded" wait_for '│   Nothing probed yet\.$'
keys p
wait_for 'Probe the ops with which table\?'
keys "$(item torch-neuron-inf1)"
check "the probe is recorded and the message says so" \
	wait_for '^Probe #1 recorded: torch-neuron-inf1, 3 ops: 1 unsupported, 1 partial, 1 device$'

report=$T/report.json
mt report --format json >"$report"
r() { jq -r "$1" "$report"; }
check "the report has the probe" test "$(r .probe.id)" = 1
check "the table's name and kind are on screen" \
	wait_for "│ Table $(r .probe.table.name) \($(r .probe.table.kind)\)\$"
check "... and the date it was retrieved" \
	wait_for "│   retrieved $(r .probe.table.retrieved)  probe #1\$"
check "... its backend" wait_for "│   backend   $(r .probe.table.backend) "
check "... and its source" wait_for '│   source    aws-neuron/aws-neuron-sdk '
for pair in "D device" "P partial" "C cpu_fallback" "U unsupported" "? unknown"; do
	st=${pair#* }
	n=$(r ".probe.summary.$st")
	check "the legend counts $st as the report does ($n)" shows "${pair%% *} $st $n"
done
check "... with the share supported" wait_for " $(r .probe.summary.support_percentage)% supported"
check "the bar: a segment per status present, filled with its letter" \
	wait_for '│ D+P+U+$'
# seg_len LETTER: how many columns the bar's segment of that status takes
seg_len() { screen | grep -E '│ [DPCU?]+$' | head -1 | tr -cd "$1" | wc -c; }
# proportional A B NA NB: segments A and B as wide as their counts say (a
# column apart at most, what rounding allows)
proportional() {
	local a b
	a=$(seg_len "$1") b=$(seg_len "$2")
	[ $((a * $4 - b * $3)) -le $(($3 > $4 ? $3 : $4)) ] &&
		[ $((b * $3 - a * $4)) -le $(($3 > $4 ? $3 : $4)) ]
}
check "... each segment as wide as its share (1 of 3 each)" \
	eval 'proportional D P 1 1 && proportional P U 1 1'

# The list, blockers first, as the report orders it.
mapfile -t want_rows < <(jq -r '.probe.ops[] |
	"\(.status) \(.op) \(.count) \(.source | sub("^table:[^:]*:"; "table line "))"' "$report")
letter() { case $1 in device) echo D ;; partial) echo P ;; cpu_fallback) echo C ;;
	unsupported) echo U ;; *) echo '\?' ;; esac; }
rows_in_order() {
	local prev=0 row n
	for w in "${want_rows[@]}"; do
		read -r st op count src <<<"$w"
		n=$(screen | grep -nE "│ $(letter "$st") ${op//./\\.} +$count ${src//./\\.}\$" |
			cut -d: -f1 | head -1)
		[ -n "$n" ] && [ "$n" -gt "$prev" ] || return 1
		prev=$n
	done
}
check "the ops are listed as the report lists them, blockers first" rows_in_order
check "the first op's details under the list" wait_for '│ ── aten::embedding ─+$'
check "... its status and source" wait_for '│   U unsupported  table:torch-neuron-inf1:[0-9]+$'
check "... and its call site" wait_for "│   at train\\.py:$EMB_LINE\$"

# Colours: the unsupported segment of the bar has a red background.
red_segment() {
	tm capture-pane -e -p -t "$SESSION" | grep -aqE $'\e\\[[0-9;]*41m(\e\\[[0-9;]*m)*U'
}
check "the unsupported segment is red" red_segment

# --- filters ----------------------------------------------------------------------
keys v
check "v asks which status to show" wait_for 'Show which ops\?'
keys 2
check "unsupported only: 1 of 3" wait_for '│ 1 of 3 ops: unsupported  Esc shows all$'
check "... the one row is aten::embedding" \
	test "$(screen | grep -cE '│ [DPCU?] aten::')" -eq 1 -a \
	"$(screen | grep -cE '│ U aten::embedding ')" -eq 1
keys Escape
check "Esc shows every op again" wait_for '│ 3 ops, blockers first|│ 3 ops  '
keys /
text wh
check "/ filters by text as it is typed" wait_for '│ 1 of 3 ops: "wh"  Esc shows all$'
check "... aten::where alone" test "$(screen | grep -cE '│ [DPCU?] aten::')" -eq 1
keys Escape
check "Esc in the prompt puts the filter back" wait_for '│ 3 ops'
keys v 2

# --- an op in full ------------------------------------------------------------
keys Enter
check "Enter shows the op in full" wait_for '│ aten::embedding$'
check "... its table and date" \
	wait_for "│   table     torch-neuron-inf1, retrieved $(r .probe.table.retrieved)\$"
check "... its call sites" wait_for '│ Call sites \(1\)$'
check "... train.py:$EMB_LINE" wait_for "│   train\\.py:$EMB_LINE\$"
check "... and the selected one's source line" \
	wait_for "│ → ?$EMB_LINE +self\\.emb = nn\\.Embedding\\(100, 16\\)\$"
keys Escape
check "Esc goes back to the list" wait_for '│ 1 of 3 ops: unsupported'

# --- a team finding ---------------------------------------------------------------
keys r
check "r asks for the op's status on the candidate" wait_for 'aten::embedding on the candidate:'
keys 1
check "... then for a note" wait_for '^note \(who, where, which version\): *$'
keys Enter
check "an empty note records nothing" wait_for '^A finding needs a note'
check "... (mtrial override lists none)" test "$(mt override --json | jq length)" -eq 0
keys r 1
wait_for '^note '
text "works on 2.14.3"
keys Enter
check "the finding is recorded and the probe runs again" \
	wait_for '^Finding #1 recorded: aten::embedding is device; probe #2 shows it$'
check "the op shows its new status and where it came from" \
	wait_for '│ D aten::embedding +1 override:journal#1$'
check "... the status filter gave way to it" wait_for '│ 3 ops'
check "... its details say so" wait_for '│   D device  override:journal#1$'
check "... with the team's note" wait_for '│   notes works on 2\.14\.3$'
check "mtrial override --json lists the finding" \
	bash -c "cd '$REPO' && '$MTRIAL' override --json | jq -e 'length == 1 and
		.[0].op == \"aten::embedding\" and .[0].status == \"device\" and
		.[0].note == \"works on 2.14.3\" and .[0].source == \"override:journal#1\"' >/dev/null"
mt report --format json >"$report"
check "the report has probe #2 with the op on the device" \
	test "$(r '.probe.id, (.probe.by_status.device[] | select(.op == "aten::embedding") | .source)' |
		tr '\n' ' ')" = "2 override:journal#1 "
check "... and the counts on screen follow it" \
	shows "D device $(r .probe.summary.device)  P partial $(r .probe.summary.partial)"

# An op called from two places: the cursor moves through its call sites.
keys /
text add
keys Enter Enter
check "an op with two call sites lists both" wait_for '│ Call sites \(2\)$'
keys j
check "... j selects the second, and its source shows" \
	wait_for "│ →$ADD2_LINE +return torch\\.add\\(h, 1\\)\$"
keys Escape Escape
check "Esc twice: the list of every op again" wait_for '│ 3 ops'

# --- narrow and back ----------------------------------------------------------------
before=$T/before.txt
masked_screen >"$before"
tm resize-window -t "$SESSION" -x 60 -y 16
check "at 60x16 the table's name shows" wait_for '│ Table torch-neuron-inf1 '
check "... and its date" wait_for "│   retrieved $(r .probe.table.retrieved)  probe #2\$"
check "... and the ops" wait_for '│ D aten::embedding +1$'
tm resize-window -t "$SESSION" -x 80 -y 24
check "back at 80x24 the screen is as it was" same_screen "$before"
masked_screen | sed 's/^/  | /'
keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'

# --- NO_COLOR: letters and reverse video instead of colour --------------------------
sgr_params() {
	tm capture-pane -e -p -t "$SESSION" | grep -oE $'\e\\[[0-9;]*m' |
		sed -E $'s/^\e\\[//; s/m$//' | tr ';' '\n' | sed '/^$/d' | sort -u
}
no_colors() { ! sgr_params | grep -qE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$'; }
reversed_bar() {
	tm capture-pane -e -p -t "$SESSION" | grep -aqE $'\e\\[[0-9;]*7m(\e\\[[0-9;]*m)*DD+'
}
tm kill-session -t "$SESSION"
start_shell 80 24 "${PRIVATE[@]}" NO_COLOR=1
start_wizard
keys j
check "NO_COLOR: the bar shows by its letters" wait_for '│ D+P+$'
check "NO_COLOR: 2 device ops twice as wide as 1 partial" proportional D P 2 1
check "NO_COLOR: the legend too" wait_for '│ D device 2  P partial 1  C cpu_fallback 0$'
check "NO_COLOR: without colours" no_colors
check "NO_COLOR: the bar in reverse video" reversed_bar
keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
