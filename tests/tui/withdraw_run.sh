#!/usr/bin/env bash
# W on the Runs step withdraws the selected run: it asks why, records the
# withdrawal as `mtrial rm run ID --why` does (the same core function, the
# same user), and the run leaves the list, which counts it as withdrawn; a
# withdrawal needs a reason, Esc withdraws nothing, and W elsewhere says
# where it works. ? lists the key. At 80x24 and at 80x16.
. "$(dirname "$0")/lib/harness.bash"

new_trial withdraw-trial
for i in 1 2 3; do
	echo "mtrial:step=1 loss=2.$i tokens=4096" >"$T/r$i.log"
done
mt runs import --system candidate "$T/r1.log" "$T/r2.log" "$T/r3.log" >/dev/null
git config --global user.name "Ada Tester"

start_shell 80 24
start_wizard
keys W
check "W in the step list on another step: where it works" \
	wait_for 'W withdraws the run selected in Runs & clocks'
keys j j j Enter
check "the Runs step lists 3 runs" wait_for '│ 3 attempts, newest first'
check "... the preview names the key" wait_for '│   Enter shows it, W withdraws it$'
keys j W
check "W asks why, naming the run" wait_for 'withdraw run #2, why:$'
keys Escape
check "Esc: nothing withdrawn" wait_for 'Nothing withdrawn'
check "... the run is still listed" wait_for '│   #2   candidate'
keys W Enter
check "no reason: refused with the core's words" \
	wait_for 'run #2 not withdrawn: withdrawing needs a reason'
keys W
text "wrong config"
keys Enter
check "withdrawn: said, with who" wait_for 'Withdrew run #2 as Ada Tester: kept in the journal'
check "... the run leaves the list" wait_gone '│   #2   candidate'
check "... which counts it" wait_for '│ 2 attempts, 1 withdrawn'
keys S
check "the side-by-side leaves it out, and says so" wait_for '│   1 withdrawn run left out \(mtrial rm --list\)\.$'
check "... counting the 2 left" wait_for '│   runs +0 +2$'
keys S Enter
check "a run's page: no made-up device count (trial.yaml has none)" \
	wait_for '│   cost     devices unknown \(count and hosts in'
keys Escape
rec=$(sqlite3 "$REPO/.mtrial/journal.db" "select kind || ' ' || item_id || ' ' || who || ' ' || why from withdrawals")
check "recorded as mtrial rm records it: $rec" test "$rec" = "run 2 Ada Tester wrong config"
check "the CLI leaves it out too" sh -c "cd '$REPO' && '$MTRIAL' runs --json | python3 -c 'import json,sys; assert [r[\"id\"] for r in json.load(sys.stdin)[\"runs\"]] == [1, 3]'"
keys W
text "again"
keys Enter
check "the next run selected can go too" wait_for 'Withdrew run #'
keys W
text "and again"
keys Enter
check "with none left, the step says how many were withdrawn" \
	wait_for '│ +No runs left: 3 withdrawn \(mtrial runs --all'
keys W
check "... and W says there is none to withdraw" \
	wait_for 'W withdraws the run selected in Runs & clocks'

tm resize-window -t "$SESSION" -x 80 -y 16
check "80x16: the step still says so" wait_for 'No runs left: 3 withdrawn'
tm resize-window -t "$SESSION" -x 80 -y 24
keys '?'
wait_for 'Keys  \(Esc'
for i in 1 2 3 4 5 6 7 8; do screen_has 'withdraw-run' && break; keys NPage; sleep 0.2; done
check "? lists the key" wait_for '^ +W +withdraw-run$'
for i in 1 2 3 4 5 6 7 8; do screen_has 'Runs: withdraw the selected run, made by mistake' && break; keys j; sleep 0.2; done
check "... and what it does" wait_for '^ +Runs: withdraw the selected run, made by mistake'
keys q q
check "q quits" wait_for '^wizard-exit=0$'
finish
