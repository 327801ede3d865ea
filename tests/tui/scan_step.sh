#!/usr/bin/env bash
# The Repository step runs a scan: `s` asks for the repository and the
# revision (defaults from trial.yaml), shows the summary with the counts
# `mtrial scan --json` gives for the same revision, and records the scan.
# The inventory browses by op (an op opens onto its call sites), by file and
# by finding, with the selected call site's source line under the list. An
# unknown revision is reported in the message line and the last scan stays.
. "$(dirname "$0")/lib/harness.bash"

for tool in git jq; do
	command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; echo "0 passed, 1 failed"; exit 1; }
done

# --- the fixture: two Python files with torch calls at known lines, a
# hard-coded "cuda", a CUDA-only package, and a call far to the right.
git_q() { git -C "$REPO" -c user.name=t -c user.email=t@example.com "$@" >/dev/null; }
mkdir -p "$REPO/src"
cat >"$REPO/src/train.py" <<'EOF'
import torch
import torch.nn.functional as F


def step(model, x, y):
    x = x.to("cuda")
    out = model(x)
    loss = F.cross_entropy(out, y)
    loss.backward()
    return torch.softmax(out, dim=-1)
EOF
cat >"$REPO/src/model.py" <<'EOF'
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        h = torch.matmul(x, x.t())
        return torch.relu(h) + torch.relu(x)

    def far(self, x):
        return self.projection_of_the_input_through_many_layers(x, x, x, x, x) + torch.tanh(x)
EOF
printf 'torch>=2.1\nflash-attn==2.5.6\n' >"$REPO/requirements.txt"
git init -q "$REPO"
git_q add -A
git_q commit -qm fixture
COMMIT=$(git -C "$REPO" rev-parse HEAD)
(cd "$REPO" && "$MTRIAL" init --repo "$REPO" --name scan-trial) >/dev/null

# What the CLI finds at the same revision, with its own cache, run outside
# the repository so that it records nothing in the trial.
want=$T/want.json
(cd "$T" && XDG_CACHE_HOME=$T/cache-cli "$MTRIAL" scan --repo "$REPO" --json) >"$want"
w() { jq -r "$1" "$want"; }
check "the CLI scan recorded nothing" test "$(w .scan_id)" = null

start_shell 80 24 XDG_CACHE_HOME="$T/cache-wizard"
start_wizard
check "with no scan, Repository says what a scan gives" wait_for '│   Nothing scanned yet\.$'
check "... and the key that runs one" wait_for 'Press s, or'

# --- a scan with the defaults ----------------------------------------------
keys s
check "s asks for the repository, trial.yaml's by default" \
	wait_for "^scan repository: $REPO\$"
keys Enter
check "... then the revision, trial.yaml's by default" wait_for "^scan revision: $COMMIT\$"
keys Enter
check "the scan is recorded and the message says so" \
	wait_for "^Scan #1 recorded: $(w .files_scanned) files, $(w .totals.calls) torch calls, $(w .totals.findings) findings\$"
check "the summary: the scan and its revision" wait_for '│   scan +#1, '
check "... the revision" wait_for "│   revision +${COMMIT:0:12}\$"
check "... files as the CLI counts them" \
	wait_for "│   files +$(w .files_scanned) Python, $(w '.files_skipped | length') skipped, $(w .totals.lines) lines\$"
check "... calls" wait_for "│   calls +$(w .totals.calls) torch calls\$"
check "... mapped calls" wait_for "│   mapped +$(w .totals.calls_mapped) of them to an aten op\$"
check "... tensor methods, how many certain" wait_for "│   methods +$(w .totals.methods) tensor methods \\($(w .totals.methods_certain) certain\\)\$"
check "... distinct ops, of both kinds of site as the probe judges them" \
	wait_for "│   ops +$(w .totals.ops_with_methods) distinct \\($(w .totals.ops) at torch calls\\)\$"
e=.totals.findings_by_effort
check "... findings by effort" \
	wait_for "│   findings +$(w .totals.findings): $(w $e.high) high, $(w $e.medium) medium, $(w $e.low) low\$"
check "... (none of no effort)" test "$(w $e.none)" -eq 0
check "... the CUDA-only dependency" wait_for '│   CUDA-only +flash-attn \(requirements\.txt:2\)$'
check "... and the keys to browse it" wait_for '│   o by op  f by file  e by finding  s scans again$'
check "the step is done" wait_for '^[ >]1 Repository +● │'
check "the record has it: report --format json gives scan.id 1" \
	wait_cmd bash -c "cd '$REPO' && '$MTRIAL' report --format json | jq -e '.scan.id == 1' >/dev/null"
check "... with the CLI's totals" \
	bash -c "cd '$REPO' && diff <('$MTRIAL' report --format json | jq -S .scan.totals) <(jq -S .totals '$want')"

# --- by op ----------------------------------------------------------------
keys o
check "o shows the ops, most used first" wait_for '│ By op: 5 ops, 6 calls'
check "... with calls and files per op" wait_for '│ ▸ aten::relu +2 +1$'
check "... most used first" test "$(screen | grep -n '▸ aten::' | head -1 | grep -c relu)" -eq 1
check "... the first op's first call site under the list" \
	wait_for '│ ── src/model\.py:7:16 torch\.relu ─+$'
check "... with its source line" wait_for '│ →7 +return torch\.relu\(h\) \+ torch\.relu\(x\)$'
check "... and the line before it" wait_for '│  6 +h = torch\.matmul\(x, x\.t\(\)\)$'
keys j Enter
check "Enter opens an op onto its call sites" wait_for '│ ▾ aten::cross_entropy_loss +1 +1$'
check "... one row per call, cut to the pane" \
	wait_for '│     src/train\.py:8:12 torch\.nn\.functional\.cross_en…$'
keys j
check "selecting a call site shows where it is" \
	wait_for '│ ── src/train\.py:8:12 torch\.nn\.functional\.cross_ent…$'
check "... and its source line at the scan's revision" \
	wait_for '│ →8 +loss = F\.cross_entropy\(out, y\)$'
keys Escape
check "Esc closes the op" wait_for '│ ▸ aten::cross_entropy_loss +1 +1$'
tm resize-window -t "$SESSION" -x 60 -y 16
check "at 60x16 the list cuts names with an ellipsis" \
	wait_for '│ ▸ aten::cross_entrop… +1 +1$'
check "... and still shows the source of the selection" wait_for '│ →8 +loss = F\.cross_entropy\(out,…$'
tm resize-window -t "$SESSION" -x 80 -y 24
check "back at 80x24 the names are whole again" wait_for '│ ▸ aten::cross_entropy_loss +1 +1$'
check "... and the source has its context again" wait_for '│  9 +loss\.backward\(\)$'
keys G Enter j
check "a call far to the right: the line is shifted to show it" \
	wait_for '│ →10 …[^│]*torch\.tanh\(x\)$'
keys Escape Escape
check "Esc again goes back to the summary" wait_for '│   o by op  f by file  e by finding'

# --- by file ----------------------------------------------------------------
keys f
check "f shows the files" wait_for '│ By file: 2 files'
check "... a column for each count" wait_for '│ file +calls +methods +findings$'
for path in src/model.py src/train.py; do
	row=$(jq -r --arg p "$path" '.files[] | select(.path == $p) |
		"\(.calls) +\(.methods) +\(.findings)"' "$want")
	check "... $path: $row" wait_for "│ ${path//./\\.} +$row\$"
done
keys j
check "... the selected file's first call under the list" \
	wait_for '│ ── src/train\.py:8:12 torch\.nn\.functional\.'

# --- by finding ---------------------------------------------------------------
keys e
check "e shows the findings" wait_for '│ By finding: 2, most effort first'
check "... high effort first" wait_for '│ high +cuda-only-package +requirements\.txt:2 '
check "... then low" wait_for '│ low +cuda-device +src/train\.py:6 '
high_row=$(screen | grep -n '│ high ' | cut -d: -f1)
low_row=$(screen | grep -n '│ low ' | cut -d: -f1)
check "... in that order" test "${high_row:-99}" -lt "${low_row:-0}"
check "... the selected finding's line" wait_for '│ →2 flash-attn==2\.5\.6$'
check "... and its whole message" wait_for '│   flash-attn: FlashAttention is CUDA kernels only;$'
keys j
check "the hard-coded cuda: its line" wait_for '│ →6 +x = x\.to\("cuda"\)$'
check "... and its message" wait_for "│   hard-coded CUDA device: change \.to\('cuda'\) to\$"
# The row that is not selected keeps its effort's style: red for high.
high_in_red() {
	tm capture-pane -e -p -t "$SESSION" | grep -aqE $'\e\\[[0-9;]*31m(\e\\[[0-9;]*m)*high '
}
check "high effort is drawn in the error style (red)" high_in_red
keys e
check "e again: the summary" wait_for '│   o by op  f by file  e by finding'

# --- an unknown revision ---------------------------------------------------------
keys s Enter C-u
text nope
keys Enter
check "an unknown revision is reported in the message line" \
	wait_for "^scan failed: unknown revision 'nope'"
check "... the last scan stays on screen" wait_for '│   scan +#1, '
check "... and in the record" \
	bash -c "cd '$REPO' && '$MTRIAL' report --format json | jq -e '.scan.id == 1' >/dev/null"

# --- a branch typed in the prompt -----------------------------------------------
git_q checkout -q -b feature
printf '\n\ndef extra(x):\n    return torch.sigmoid(x)\n' >>"$REPO/src/train.py"
git_q commit -qam extra
keys s Enter C-u
text feature
keys Enter
check "a branch typed in the prompt is scanned and recorded as scan #2" \
	wait_for '^Scan #2 recorded: 2 files, 7 torch calls, 2 findings$'
check "... the summary follows it" wait_for '│   calls +7 torch calls$'
check "... with the branch name" wait_for '│   revision +[0-9a-f]{12} \(feature\)$'
check "... and report --format json has scan.id 2" \
	bash -c "cd '$REPO' && '$MTRIAL' report --format json | jq -e '.scan.id == 2' >/dev/null"
keys s Enter C-u
text feature
keys Enter
check "an unchanged rescan is not recorded twice" \
	wait_for '^Unchanged since scan #2: nothing new recorded$'
(cd "$REPO" && XDG_CACHE_HOME=$T/cache-cli "$MTRIAL" scan --rev "$COMMIT" >/dev/null)
check "a scan recorded from another terminal shows within seconds" wait_for '│   scan +#3, '
check "... with its counts" wait_for "│   calls +$(w .totals.calls) torch calls\$"
keys s Escape
check "Esc cancels the scan prompt" wait_for '^Scan cancelled$'
masked_screen | sed 's/^/  | /'
keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'

# --- NO_COLOR: effort levels in bold and plain, no colour -----------------------
sgr_params() {
	tm capture-pane -e -p -t "$SESSION" | grep -oE $'\e\\[[0-9;]*m' |
		sed -E $'s/^\e\\[//; s/m$//' | tr ';' '\n' | sed '/^$/d' | sort -u
}
no_colors() { ! sgr_params | grep -qE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$'; }
high_in_bold() {
	tm capture-pane -e -p -t "$SESSION" | grep -aqE $'\e\\[[0-9;]*1m(\e\\[[0-9;]*m)*high '
}
tm kill-session -t "$SESSION"
start_shell 80 24 XDG_CACHE_HOME="$T/cache-wizard" NO_COLOR=1
start_wizard
keys e j
check "NO_COLOR: the findings show" wait_for '│ →6 +x = x\.to\("cuda"\)$'
check "NO_COLOR: without colours" no_colors
check "NO_COLOR: high effort still stands out, in bold" high_in_bold
keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
