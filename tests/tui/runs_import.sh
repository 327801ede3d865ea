#!/usr/bin/env bash
# Runs & clocks, I: import a run made elsewhere (issue 20), as `mtrial runs
# import` does through the same core function: the log in a prompt, then
# the system and track menus and, since trial.yaml sets precision.best, the
# comparison (the menus `x` asks); the run imported is then selected, its
# design recorded. A log imported already is refused with the core's
# words, and so are a file that is not there and a system description.
# Without precision.best the comparison is not asked. Real MLPerf logs.
. "$(dirname "$0")/lib/harness.bash"

D=$MT_SOURCE_DIR/tests/data
R0=$D/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt
R2=$D/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt
new_trial import-trial
SPEC=$REPO/.mtrial/trial.yaml
cat >"$SPEC" <<'YAML'
schema: 1
name: import-trial
systems:
  baseline: {accelerator: H100, count: 4, hosts: 1}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1}
quality_target: {metric: eval_accuracy, threshold: 0.759, direction: higher}
precision:
  weights: fp32
  best: {candidate: {weights: bf16, activations: fp8}}
YAML
mt runs import --system baseline "$D/curves/ref.csv" >/dev/null 2>&1
mt runs import --system candidate "$D/curves/cand.jsonl" >/dev/null 2>&1
cp "$R0" "$T/r0.txt" && cp "$R2" "$T/r2.txt" # short paths: the message line shows them whole
db() { sqlite3 "$REPO/.mtrial/journal.db" "$1"; }

start_shell 80 24
start_wizard
keys j j j Enter
check "the Runs step, two runs" wait_for '│ 2 attempts, newest first'
keys j
check "the older run selected" wait_for '#1 baseline, '

keys I
check "I asks for the log" wait_for "import a run's log \(MLPerf, mtrial: lines, CSV, JSONL\):"
text "$T/r0.txt"
keys Enter
check "... then the system" wait_for 'Import a run: which system\?'
keys 1
check "... then the track" wait_for 'Import as a baseline run: which track\?'
keys 1
check "... then the comparison, since trial.yaml sets precision.best" \
	wait_for 'Which comparison does the run belong to\?'
check "... the menu x asks" wait_for "matched: trial.yaml's precision, the same recipe on both systems"
keys 1
check "the wizard says what it imported" \
	wait_for "Imported $T/r0.txt as run #3 \(baseline, success, design matched"
check "three runs listed" wait_for '│ 3 attempts, newest first'
check "the run imported is selected, not the one selected before" wait_for '#3 baseline, '
check "recorded as mtrial runs import records it" \
	test "$(db "select system || ' ' || origin || ' ' || design from runs where id = 3")" = \
	"baseline import matched"
check "... the log it read" test "$(db "select log from runs where id = 3")" = "$T/r0.txt"

keys I
text "$T/r2.txt"
keys Enter 2 1
check "the candidate's comparison asked" wait_for 'Which comparison does the run belong to\?'
keys 2
check "a best-recipe run imported" \
	wait_for "Imported $T/r2.txt as run #4 \(candidate, aborted, design best"
check "it is selected, its design named" wait_for '#4 candidate, design best, '
check "recorded with its design" \
	test "$(db "select system || ' ' || design from runs where id = 4")" = "candidate best"

# --- refused, with the core's words; nothing recorded -------------------------------
cp "$T/r0.txt" "$T/again.txt"
keys I
text "$T/again.txt"
keys Enter 1 1 1
check "a log imported already is refused, naming its run" \
	wait_for "Not imported: $T/again.txt: this log is run #3's"
keys I
text "$T/none.txt"
keys Enter
check "a file that is not there is said at once" wait_for "Not imported: $T/none.txt: No such file"
cp "$D/runs/Dell_systems_XE9640x4H100-SXM-80GB.json" "$T/sys.json"
keys I
text "$T/sys.json"
keys Enter
check "a system description is not a run's log" wait_for "Not imported: $T/sys.json is a system description, not a run"
keys I Escape
check "Esc cancels" wait_for 'Cancelled: nothing imported'
check "nothing more recorded" test "$(db "select count(*) from runs")" = 4

# --- without precision.best, no comparison to choose ------------------------------------
sed -i '/^precision:/,$d' "$SPEC"
printf 'mtrial:step=1 loss=2.5\nmtrial:step=2 loss=2.4\n' >"$T/own.log"
keys R Escape g
check "back on the first step" wait_for '│ Repository'
keys I
check "I from another step opens the Runs step with its prompt" \
	wait_for "│ Runs & clocks" && check "... asking the log" wait_for "import a run's log"
text "$T/own.log"
keys Enter 2 1
check "imported without asking the comparison" \
	wait_for "Imported $T/own.log as run #5 \(candidate, success, 0 warnings\)"
check "... matched" test "$(db "select design from runs where id = 5")" = matched

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
