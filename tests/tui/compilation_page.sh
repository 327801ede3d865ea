#!/usr/bin/env bash
# Runs & clocks, B: compilation and shapes, the report's section in the
# wizard: each run's compilations and their share, the bucket advice from
# the candidate's run that logs its sequence lengths (best, padding to the
# longest, a bucket per length), and the break-even of the two systems drawn
# as total time against run length, the trial's run length marked; B or Esc
# goes back. A run's page has a compiles line. A trial without a baseline
# run says why there is no break-even.
. "$(dirname "$0")/lib/harness.bash"

new_trial compile-trial
# the candidate: 0.2 + 0.0004 L s a step, 120 s more on each new length
python3 "$MT_SOURCE_DIR/tests/data/runs/seq_series.py" "$T/cand.csv"
mt runs import --system candidate "$T/cand.csv" >/dev/null

start_shell 100 40
start_wizard
keys j j j Enter B
check "the page and its key" wait_for '│ Compilation and shapes  B the list$'
check "the candidate's compilations" \
	wait_for '│   #1    candidate   6 compiles, 2m00s each, 12m30s in all, 83%$'
check "the bucket advice names its run" wait_for '│ Buckets from run #1, 2m00s a compilation$'
check "... the best plan" wait_for '│   best           2 compiles +[0-9m]+s  25\.3% padding  512, 2048$'
check "... padding to the longest" wait_for '│   pad to max     1 compile  .* 2048$'
check "no baseline run: no break-even, and why" wait_for '│ +None: the baseline has no run'
keys B
check "B goes back to the list" wait_for '│ 1 attempts?, newest first'

# a baseline run: the break-even and its chart
{ echo "step,time,loss"; for s in $(seq 1 300); do echo "$s,$((10 + s)).0,2.0"; done; } >"$T/base.csv"
mt runs import --system baseline "$T/base.csv" >/dev/null
keys R B
check "the break-even" \
	wait_for '│ Break-even: 1242 steps \(the baseline faster before, candidate after\)$'
check "... drawn, the run length marked" wait_for '│ +steps 0 +\^ run length +[0-9]+$'
check "... its legend" wait_for '│   \* baseline  o candidate \(hours\)  │ break-even, 1242 steps$'
keys Escape
check "Esc goes back too" wait_for '│ 2 attempts, newest first'

# a run's page: its compilations
keys G Enter
check "the run's page has a compiles line" \
	wait_for '│   compiles 6 x 2m00s \(83%\); step 2 2m00s \(median'
finish
