#!/usr/bin/env bash
# The Runs & clocks step lists every attempt, newest first, failed ones
# too, with clock 1, the steady step and the time to target; Enter shows a
# run: both clocks explained, its stall, the target reached at its step
# with the cost, MLPerf minutes and device-hours, its log, and its
# evaluations plotted against time with the target line. S shows
# baseline and candidate side by side with candidate / baseline. A run
# started by `mtrial run` in another terminal shows while it runs, with
# its elapsed time, steps, loss and evaluation, and ends aborted. On a
# narrow pane the list and the side-by-side keep what matters. x starts a
# run from the wizard (system, track, command): it runs in the background
# and the list shows its progress. A rehearsal is marked R, said to be no
# evidence and not priced, and left out of the side-by-side; x starts one
# too.
. "$(dirname "$0")/lib/harness.bash"

new_trial runs-trial
cat >"$REPO/.mtrial/trial.yaml" <<'YAML'
schema: 1
name: runs-trial
systems:
  baseline: {accelerator: A100, count: 8, hosts: 2, price: {hourly: 36, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 45, currency: USD}}
quality_target: {metric: eval_loss, threshold: 2.2, direction: lower}
YAML
GIT_AUTHOR_NAME="Bo Base" mt run --system baseline --track portability -- sh "$MT_SOURCE_DIR/tests/data/runs/loop.sh" >/dev/null 2>&1
mt run --system candidate -- sh -c 'echo "mtrial:step=1 loss=3.0"; exit 3' >/dev/null 2>&1
# a protocol log made elsewhere, with its own times: the target at step 8
t0=1700000000000
{
	for s in 1 2 3 4 5 6 7 8; do
		echo "mtrial:step=$s loss=2.4 tokens=4096 time_ms=$((t0 + 2000 + s * 40))"
	done
	echo "mtrial:eval step=4 eval_loss=2.25 time_ms=$((t0 + 2160))"
	echo "mtrial:eval step=8 eval_loss=2.05 time_ms=$((t0 + 2320))"
} >"$T/cand.log"
# recorded by another author, whose name (text from another machine) holds
# an escape sequence a terminal would obey
GIT_AUTHOR_NAME=$(printf 'Ada \033[2JR') mt runs import --system candidate "$T/cand.log" >/dev/null

start_shell 80 24
start_wizard
keys j j j
# --- the list ----------------------------------------------------------------
check "the attempts, newest first, with the keys" \
	wait_for '│ 3 attempts, newest first  S side by side  x run$'
check "the columns" wait_for '│   id   system    status  clock1   step to target$'
check "the imported run: no submission time, its step and time to target" \
	wait_for '│   #3   candidate success      -   40ms 280ms$'
check "the failed attempt is listed, not reached" \
	wait_for '│   #2   candidate failed  +[0-9.]+m?s +- not reached$'
check "the baseline run with both clocks" \
	wait_for '│   #1   baseline  success +[0-9.]+ms +[0-9.]+ms [0-9.]+ms$'
order=$(screen | grep -oE '│   #[0-9]+ ' | tr -dc '0-9\n' | tr '\n' ' ')
check "... #3 above #2 above #1" test "$order" = "3 2 1 "
check "the selected run under the list: its target" \
	wait_for '│   target   reached at step 8, 280ms after run start$'
check "... its log" wait_for "│   log      $T/cand\\.log$"
check "... and who recorded it, sanitised, in the preview's rule" \
	wait_for '│ ── #3 candidate, .* by Ada .\[2JR ─+$'
check "the step is partial" wait_for '│ Runs & clocks \(partial\)'

# --- a run in full -------------------------------------------------------------
keys Enter j j Enter
check "Enter shows the baseline run" wait_for '│ Run #1 baseline success  portability'
check "... who recorded it, on the heading's line" \
	wait_for '│ Run #1 baseline success  portability   by Bo Base$'
check "clock 1 explained" wait_for '│   clock 1  [0-9.]+ms submission to the first step:$'
check "clock 2: the steady step" wait_for '│   clock 2  [0-9.]+ms per step in steady state'
check "the stall at step 9, a compilation with the first step's" \
	wait_for '│   compiles 2 x [0-9.]+ms \([0-9]+%\); step 9 [0-9.]+ms '
check "the target reached at step 8" wait_for '│   target   reached at step 8, [0-9.]+ms after run$'
check "... and its cost" wait_for '│            start, cost [0-9.e-]+ USD$'
check "devices and device-hours, under cost: no MLPerf minutes in this log" \
	wait_for '│   cost     16 devices, [0-9.e-]+ device-hours, cost$'
check "... and no MLPerf line for a run that is not one" wait_gone '│   MLPerf  '
check "the log" wait_for '│   log      .*-baseline\.log$'
check "the plot: evaluations as points" wait_for '│     2\.3 │ +\*$'
check "... the target line" wait_for '│         │-{30,}$'
check "... the last evaluation below it" wait_for '│     1\.9 │ +\*$'
check "... seconds along the axis" wait_for '│        s 0 +[0-9.]+$'
check "... the legend names the target" wait_for '│   \* eval_loss  --- target 2\.2$'
tline=$(screen | grep -nE '│         │-{30,}$' | cut -d: -f1)
first=$(screen | grep -nE '│     2\.3 │' | cut -d: -f1)
check "... 2.3 above the target line" test "$first" -lt "$tline"

# --- side by side ---------------------------------------------------------------
keys Escape S
check "S: baseline and candidate side by side" wait_for '│ Baseline vs candidate  S the list$'
check "... the columns" wait_for '│ +baseline   candidate cand/base$'
check "... the runs of each" wait_for '│   runs +1 +2$'
check "... the failed attempts" wait_for '│   failed +0 +1$'
check "... those that reached the target" wait_for '│   reached +1 +1$'
check "... the median time to target and the ratio" \
	wait_for '│   to target +[0-9.]+ms +280ms [0-9.]+x$'
check "... clock 1 (the imported run has none)" wait_for '│   clock 1 +[0-9.]+ms +- +-$'
check "... the steady step" wait_for '│   steady step +[0-9.]+ms +40ms [0-9.]+x$'
check "... the cost to target" wait_for '│   target cost +[0-9.e-]+ +0\.0035 [0-9.]+x$'
tm resize-window -t "$SESSION" -x 60 -y 16
check "on a narrow pane: c/b for the ratio" wait_for '│ +base +cand c/b$'
check "... with two decimals" wait_for '│   steady step +[0-9.]+ms +40ms [0-9]\.[0-9][0-9]x$'
keys S
check "... the list keeps the status and the time to target" \
	wait_for '│   #2   cand failed +[0-9.]+m?s not rea…$'
tm resize-window -t "$SESSION" -x 80 -y 24
check "S again: the list" wait_for '│ 3 attempts, newest first'

# --- a rehearsal: marked R, said to be no evidence, left out of the side-by-side -----
mt run --rehearsal --system baseline --label "CPU stand-in" -- sh "$MT_SOURCE_DIR/tests/data/runs/loop.sh" \
	>/dev/null 2>&1
check "a rehearsal shows, marked R" wait_for '│   #4 R baseline  success +[0-9.]+ms +[0-9.]+ms [0-9.]+ms$'
check "... the title counts the rehearsals, R" wait_for '│ 4 attempts, 1 rehearsal \(R\)  S side by side  x run$'
keys g
check "... its preview says it is a rehearsal" wait_for '│ ── #4 baseline, a rehearsal, '
keys Enter
check "... its page says it is never evidence" \
	wait_for '│   kind     rehearsal: it tests the pipeline and is$'
check "... (the line wrapped)" wait_for '│            never evidence$'
check "... and that it is not priced" wait_for '│   cost     not priced: rehearsal$'
keys Escape S
check "... the side-by-side leaves it out" wait_for '│   runs +1 +2$'
check "... and says so" wait_for '│   1 rehearsal left out: not evidence\.$'
keys S

# --- a run from another terminal, while it runs ----------------------------------
cat >"$T/slow.sh" <<'SH'
echo "mtrial:step=1 loss=2.75 tokens=4096"
echo "mtrial:step=2 loss=2.61 tokens=4096"
echo "mtrial:eval step=2 eval_loss=2.40"
sleep 60
SH
(cd "$REPO" && exec "$MTRIAL" run --system candidate --label live -- sh "$T/slow.sh") \
	>"$T/live.out" 2>&1 &
live=$!
check "a run started in another terminal shows, running" \
	wait_for '│   #5   candidate running +[0-9.]+m?s +- not yet$'
keys g
check "g selects it" wait_for '│ ── #5 candidate, '
check "... with its elapsed time, step, loss and evaluation" \
	wait_for '│   running 0:00:0[0-9]  step 2  loss 2\.61  eval_loss 2\.4$'
e1=$(screen | grep -oE 'running 0:00:0[0-9]' | head -1)
sleep 2
e2=$(screen | grep -oE 'running 0:00:0[0-9]' | head -1)
check "... the elapsed time goes on" test "$e1" != "$e2"
c1_running=$(screen | grep -oE '│   #5   candidate running +[0-9.]+m?s' | awk '{print $NF}')
kill -INT "$live"
wait "$live"
check "stopped, it shows as aborted" wait_for '│   #5   candidate aborted' 6
# clock 1 is the log's first step from the submission to the millisecond,
# the same figure while the run goes on and once it ended
c1_ended=$(screen | grep -oE '│   #5   candidate aborted +[0-9.]+m?s' | awk '{print $NF}')
check "clock 1 ($c1_running while running) is unchanged at the end ($c1_ended)" \
	test -n "$c1_running" -a "$c1_running" = "$c1_ended"
masked_screen | sed 's/^/  | /'

# --- a run started from the wizard ------------------------------------------------
cat >"$T/wiz.sh" <<SH
echo "mtrial:step=1 loss=2.90 tokens=4096"
echo "mtrial:step=2 loss=2.70 tokens=4096"
echo "mtrial:eval step=2 eval_loss=2.50"
while [ ! -e "$T/go" ]; do sleep 0.1; done # the test has seen step 2
echo "mtrial:step=3 loss=2.35 tokens=4096"
exec sleep 30
SH
keys h j x
check "x, from the step list too, asks for the system" wait_for 'Start a run: which system\?'
keys 1
check "... then the track" wait_for 'Start a baseline run: which track\?'
keys 2
check "... then the command" wait_for 'command \(sh -c, in this directory\):'
text "sh $T/wiz.sh"
keys Enter
check "the wizard says it started" \
	wait_for "Started a baseline, portability run in the background: sh $T/wiz\\.sh"
check "the run shows in the list, running" wait_for '│   #6   baseline  running +[0-9.]+m?s +- not yet$'
keys g
check "... with its progress: elapsed, step, loss and evaluation" \
	wait_for '│   running 0:00:[0-9][0-9]  step 2  loss 2\.7  eval_loss 2\.5'
touch "$T/go"
check "... the step goes on" wait_for '│   running 0:00:[0-9][0-9]  step 3  loss 2\.35  eval_loss 2\.5'
rec=$(sqlite3 "$REPO/.mtrial/journal.db" "select system || ' ' || track || ' ' || label || ' ' || command from runs where id = 6")
check "recorded as mtrial run records a run, labelled" \
	test "$rec" = "baseline portability started from the wizard sh -c 'sh $T/wiz.sh'"
kill -INT "$(sqlite3 "$REPO/.mtrial/journal.db" "select pid from runs where id = 6")"
check "stopped, it shows as aborted" wait_for '│   #6   baseline  aborted' 12
keys x Escape
check "Esc in the menu: no run started" wait_for 'No run started'
keys x 2 1 Enter
check "an empty command: no run started" wait_for 'No command given: no run started'

keys x
check "x offers each system's rehearsal too" wait_for '4 +candidate, a rehearsal \(never evidence\)'
keys 4
check "... a rehearsal: then the track" wait_for 'Start a candidate rehearsal: which track\?'
keys 1
check "... then the command" wait_for 'command \(sh -c, in this directory\):'
text 'echo "mtrial:step=1 loss=2.5"'
keys Enter
check "the wizard says it started a rehearsal" \
	wait_for 'Started a candidate rehearsal in the background: echo "mtrial:step=1 loss=2\.5"'
check "it shows in the list, marked R" wait_for '│   #7 R candidate (success|running)'
rec=$(sqlite3 "$REPO/.mtrial/journal.db" "select system || ' ' || rehearsal || ' ' || label from runs where id = 7")
check "recorded as a rehearsal" test "$rec" = "candidate 1 started from the wizard"

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
