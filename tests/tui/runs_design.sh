#!/usr/bin/env bash
# The two comparison designs in the wizard (issue 20): with precision.best
# in trial.yaml, starting a run (x) asks which comparison it belongs to
# after the track, and the run is recorded with that design; the list's
# preview and the run's details name a best-recipe run's design.
. "$(dirname "$0")/lib/harness.bash"

new_trial design-trial
cat >"$REPO/.mtrial/trial.yaml" <<'YAML'
schema: 1
name: design-trial
systems:
  baseline: {accelerator: A100, count: 8, hosts: 1, price: {hourly: 36, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 45, currency: USD}}
quality_target: {metric: eval_loss, threshold: 2.2, direction: lower}
precision:
  weights: fp32
  best: {candidate: {weights: bf16, activations: fp8}}
criteria:
  - {name: best-time, kind: time_to_quality, design: best, threshold: 1.0}
YAML
mt run --system baseline -- sh -c 'echo "mtrial:step=1 loss=3.0"' >/dev/null 2>&1

start_shell 80 24
start_wizard
keys j j j
check "the Runs step" wait_for '│ 1 attempts?, newest first'
keys x 2
check "x: the system, then the track" wait_for 'Start a candidate run: which track\?'
keys 1
check "... then which comparison, since trial.yaml sets precision.best" \
	wait_for 'Which comparison does the run belong to\?'
check "... matched" wait_for "matched: trial.yaml's precision, the same recipe on both systems"
check "... or best" wait_for "best: this system's best recipe, trial.yaml's precision.best"
keys 2
check "... then the command" wait_for 'command \(sh -c, in this directory\):'
text 'echo "mtrial:step=1 loss=2.5"'
keys Enter
check "the wizard says it started a best-recipe run" \
	wait_for 'Started a candidate, design best run in the background: echo'
check "it shows in the list" wait_for '│   #2   candidate (success|running)'
keys k
check "the preview names its design" wait_for '#2 candidate, design best, '
rec=$(sqlite3 "$REPO/.mtrial/journal.db" "select system || ' ' || design from runs where id = 2")
check "recorded with its design" test "$rec" = "candidate best"
keys Enter
check "the details name the design" wait_for '│   design   best: each platform'
keys Escape
keys Tab
keys G
check "the Summary's criterion names its comparison and whose recipes" \
	wait_for '│   recipe +best: each system its own'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
