#!/usr/bin/env bash
# The frame at 80x24: title, the six steps, the trial name and the status
# line; each empty step says what will appear and which command fills it;
# without a terminal the wizard refuses with a usage error.
. "$(dirname "$0")/lib/harness.bash"

new_trial frame-trial
start_shell 80 24
start_wizard

check "the whole 80x24 frame matches expected/frame-80x24.txt" \
	same_screen "$EXPECTED/frame-80x24.txt"
for step in "1 Repository" "2 Ops & compatibility" "3 Correctness" "4 Runs & clocks" \
	"5 Tracks & effort" "6 Summary"; do
	check "the side list shows '$step'" wait_for "^[ >]$step +. │"
done
check "the status line shows the trial name and the timer" \
	wait_for '^ frame-trial +timer off .*\? help  q quit$'
check "Repository says nothing is scanned yet" wait_for '│   Nothing scanned yet\.$'
check "... that s fills it" wait_for 'Press s, or'
check "... as does mtrial scan" wait_for '│ +(run )?mtrial scan\.$'

keys j
check "Ops & compatibility: nothing probed yet" wait_for '│   Nothing probed yet\.$'
check "... p or mtrial probe fills it" wait_for 'Press p, or run'
check "... after a scan" wait_for '│   It needs a scan first: press s'
check "the heading follows the selection" wait_for '│ Ops & compatibility \(empty\)'
keys j
check "Correctness: filled by mtrial check" wait_for '│ +mtrial check fills this'
keys j
check "Runs & clocks shows both systems from the spec" \
	wait_for '│   baseline  ' && check "... and the candidate" wait_for '│   candidate  '
check "Runs & clocks says mtrial run -- CMD records runs" wait_for 'mtrial run -- CMD records runs'
keys G
check "G selects the Summary" wait_for '│ Summary'
check "Summary has the quality target" wait_for '│ Quality target'
check "Summary: the verdict, not enough evidence without criteria" \
	wait_for '│ Verdict: NOT ENOUGH EVIDENCE$'
keys Tab G
check "Summary lists what is missing" wait_for 'Facts trial.yaml does not give yet'
keys g Tab g
check "g in the list goes back to Repository" wait_for '│ Repository'

# A screen dump of this state, for people reading the test log.
masked_screen | sed 's/^/  | /'

keys q
check "q leaves the wizard with status 0" wait_for '^wizard-exit=0$'

out=$(mt tui </dev/null 2>&1)
rc=$?
check "without a terminal: exit status 2" test "$rc" -eq 2
check "without a terminal: a clear message" grep -q "needs a terminal" <<<"$out"

finish
