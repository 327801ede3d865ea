#!/usr/bin/env bash
# The Ops step's sources of ops: the static scan, a TorchScript archive's
# graphs and a dispatch trace of a real run, each recorded with `mtrial ops
# show FILE`. `i` lists them in a menu (a source not recorded says how to
# record it); choosing one probes it with the table shown, records the probe
# and the header says where the ops come from; `p` with another table keeps
# the source. `D` shows what the scan missed, what only backward ran and what
# only the scan saw; with nothing to compare it says what to record.
. "$(dirname "$0")/lib/harness.bash"

PY=${OPTRACE_PYTHON:-/usr/bin/python3}
for tool in git jq sqlite3; do
	command -v "$tool" >/dev/null ||
		{ echo "$tool is needed" >&2; echo "0 passed, 1 failed"; exit 1; }
done
if ! "$PY" -c 'import torch' 2>/dev/null; then
	echo "$PY cannot import torch: install python3-torch (scripts/install-deps)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

export XDG_CACHE_HOME=$T/cache XDG_DATA_HOME=$T/data
PRIVATE=(XDG_CACHE_HOME="$XDG_CACHE_HOME" XDG_DATA_HOME="$XDG_DATA_HOME")

# --- the fixture: the model and the training loop in the repository the
# trial scans, an archive of the model and a trace of three steps.
git_q() { git -C "$REPO" -c user.name=t -c user.email=t@example.com "$@" >/dev/null; }
mkdir -p "$REPO"
cp "$MT_SOURCE_DIR/tests/data/torchscript/make_models.py" "$REPO/model.py"
cp "$MT_SOURCE_DIR/tests/trace/train_loop.py" "$MT_SOURCE_DIR/tests/trace/tiny_model.py" "$REPO/"
git init -q "$REPO"
git_q add -A
git_q commit -qm fixture
(cd "$REPO" && "$PY" model.py "$T/m") >/dev/null 2>&1 || fail "making the TorchScript archive"
(cd "$REPO" && "$PY" "$MT_SOURCE_DIR/probes/optrace.py" -o "$T/ops.json" -- train_loop.py \
	--steps 3) >/dev/null 2>&1 || fail "tracing the training loop"
(cd "$REPO" && "$MTRIAL" init --repo "$REPO" --name sources-trial) >/dev/null
mt scan >/dev/null
REV=$(git -C "$REPO" rev-parse --short=7 HEAD)

# op_shown OP COUNT: the list has OP, called COUNT times (the filter finds
# it, Esc puts the filter back).
op_shown() {
	local rc
	keys /
	text "$1"
	wait_for "│ [DPCU?] $1 +$2 "
	rc=$?
	keys Escape
	wait_gone '^filter ops:'
	return $rc
}
probes() { sqlite3 "$REPO/.mtrial/journal.db" "select count(*) from probes"; }
item() { screen | grep -oE "│ +[0-9] +$1 " | grep -oE '[0-9]' | head -1; }

# --- a trial with the scan alone ---------------------------------------------
start_shell 100 30 "${PRIVATE[@]}"
start_wizard
keys j Enter
keys D
check "D with the scan alone says there is nothing to compare it with" \
	wait_for '│   Nothing to compare the scan with: no trace or TorchScript'
check "... and how to record a trace" shows 'mtrial ops show ops.json'
keys Escape
check "Esc leaves the differences" wait_gone 'Nothing to compare'
keys i
check "i lists the sources in a menu" wait_for 'Show the ops of which source\?'
check "... the scan with its revision" wait_for "1  scan +$REV \\(latest scan\\)"
check "... an archive not recorded, and how to record one" \
	wait_for '2  torchscript +not recorded: mtrial ops show FILE\.pt'
check "... nor a trace" wait_for '3  trace +not recorded: mtrial ops show ops\.json'
keys 3
check "choosing a source not recorded says how to record it" \
	wait_for '^No trace recorded: mtrial ops show ops\.json \(made by the tracer'
check "... and probes nothing" test "$(probes)" -eq 0
keys i 1
check "choosing the scan probes it" wait_for '^Probe #1 recorded: torchneuron-2\.14, '
check "the header says the ops come from the scan" wait_for "│   ops from  scan $REV\$"

# --- the archive and the trace, recorded from another terminal ------------------
mt ops show "$T/m/net.pt" >/dev/null 2>&1
mt ops show "$T/ops.json" >/dev/null 2>&1
keys i
wait_for 'Show the ops of which source\?'
check "the menu names the archive" wait_for "2  torchscript +${T//./\\.}/m/net\\.pt"
check "... and the trace with its steps" wait_for "3  trace +${T//./\\.}/ops\\.json \\(3 steps\\)"
keys "$(item trace)"
check "the trace is probed and recorded" wait_for '^Probe #2 recorded \(trace\): torchneuron-2\.14, '
check "the header names the trace and its steps" \
	shows "ops from  trace $T/ops.json, 3 optimizer steps"
check "the trace's ops: aten::addmm, 6 times in 3 steps" op_shown aten::addmm 6
check "... and backward ops" op_shown aten::mse_loss_backward 3
check "... which have no call sites, and the step says why" \
	wait_for '│   none: a dispatch trace records no source lines$'
check "the probe is in the record" test "$(probes)" -eq 2
# the probe's result is an artefact the index names (trial/objects.h)
latest_probe() {
	local ref
	ref=$(sqlite3 "$REPO/.mtrial/journal.db" \
		"select substr(json_extract(result, '\$.object'), 8) from probes order by id desc limit 1")
	zcat "$REPO/.mtrial/objects/sha256/${ref:0:2}/${ref:2}"
}
check "... from the trace" test "$(latest_probe | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["from"]["source"])')" = trace

# --- the differences ------------------------------------------------------------
keys D
check "D compares the trace with the scan" wait_for '│ Differences  \(Esc returns to the ops\)$'
check "... naming both" shows "ops of        trace $T/ops.json, 3 optimizer steps"
check "... the scan" wait_for "│   against +scan $REV\$"
check "... why some ops are on one side" wait_for 'aten::linear → aten::t \+ aten::addmm'
diff_json=$T/diff.json
mt ops diff scan trace --json >"$diff_json"
missed=$(jq '.missed_by_scan | length' "$diff_json")
check "the ops the scan missed, counted as mtrial ops diff counts them ($missed)" \
	wait_for "│ Missed by the static scan \\($missed\\)\$"
check "... aten::linear run as aten::addmm and aten::t, not missed" \
	wait_for '│   aten::linear → aten::addmm, aten::t *$'
# The page is taller than the pane: read it all, a page at a time.
all=$T/diff.txt
: >"$all"
for _ in $(seq 1 8); do
	screen >>"$all"
	keys NPage
	sleep 0.3
done
section_of() { # the section an op is listed under
	awk -v op="$1" '/│ [A-Z][a-z].*\([0-9]+\)$/ { s = $0 } index($0, "│   " op " ") { print s }' "$all" |
		sed 's/.*│ //' | sort -u
}
check "aten::mse_loss_backward is seen only in backward, and only there" \
	test "$(section_of aten::mse_loss_backward)" = "Seen only in backward ($(jq '.backward_only | length' "$diff_json"))"
check "aten::addmm is in no list of its own (its composite explains it)" \
	test -z "$(section_of aten::addmm)"
keys q
check "q returns to the ops" wait_for '│ Table torchneuron-2\.14 '
check "... and does not quit" test -z "$(screen | grep 'wizard-exit')"

# --- another table keeps the source ---------------------------------------------
keys p
wait_for 'Probe the ops with which table\?'
keys "$(screen | grep -oE '│ +[0-9] +torch-neuronx-training ' | grep -oE '[0-9]' | head -1)"
check "p with another table probes the trace again" \
	wait_for '^Probe #3 recorded \(trace\): torch-neuronx-training, '
check "... the header still names the trace" shows "ops from  trace $T/ops.json"
check "... with aten::addmm 6" op_shown aten::addmm 6

# --- the archive ------------------------------------------------------------------
keys i
wait_for 'Show the ops of which source\?'
keys "$(item torchscript)"
check "the archive is probed with the table shown" \
	wait_for '^Probe #4 recorded \(torchscript\): torch-neuronx-training, '
check "the header names the archive" shows "ops from  TorchScript $T/m/net.pt"
check "its ops: aten::linear 3 times" op_shown aten::linear 3
check "four probes recorded" test "$(probes)" -eq 4
keys D
check "D compares the archive with the scan" shows "ops of        TorchScript $T/m/net.pt"
check "... the scan misses none of its ops" wait_for '│ Missed by the static scan \(0\)$'
keys Escape
keys i 1
check "back to the scan" wait_for '^Probe #5 recorded: torch-neuronx-training, '
keys D
check "D on the scan compares it with the latest trace" \
	shows "ops of        trace $T/ops.json, 3 optimizer steps"
keys Escape
keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
