#!/usr/bin/env bash
# `t` starts the effort timer through a one-key menu (category, then track)
# and stops it; `mtrial effort status` sees both, and the status line shows
# the running timer ticking. A timer started elsewhere shows up too.
. "$(dirname "$0")/lib/harness.bash"

new_trial timer-trial
start_shell 80 24
start_wizard

running() { mt effort status --json | jq -e "$1" >/dev/null; }

keys t
check "t asks for the category" wait_for 'Start the timer: what kind of work\?'
check "... listing every category with its key" wait_for '│ [ >]6  other  +│'
keys 6
check "then for the track" wait_for 'Start the timer: which track\?'
keys 2
check "the timer runs: mtrial effort status sees it" \
	wait_cmd running '.running.category == "other" and .running.track == "portability"'
check "the message line says so" wait_for '^Timer started: other, portability \(t stops it\)$'
check "the status line shows category, track and elapsed time" \
	wait_for '^ timer-trial   timer other · portability · 0:00:0[0-9] '
check "the clock ticks every second" wait_for 'timer other · portability · 0:00:0[2-9] '

keys t
check "t again stops it: mtrial effort status sees no timer" wait_cmd running '.running == null'
check "the message gives the interval" wait_for '^Timer stopped: other, portability, [0-9]+s$'
check "the status line says timer off" wait_for '^ timer-trial  timer off '

keys t Escape
check "Esc in the menu starts nothing" wait_for '^Timer not started$'
check "... as mtrial effort status confirms" running '.running == null'

keys t Enter Enter
check "t Enter Enter: category other, the last track" \
	wait_cmd running '.running.category == "other" and .running.track == "portability"'
keys t
wait_cmd running '.running == null'

mt effort start --category debugging --track optimized "from the shell" >/dev/null
check "a timer started from another terminal appears within seconds" \
	wait_for 'timer debugging · optimized · 0:00:0[0-9] '
mt effort stop >/dev/null
check "... and its stop too" wait_for '^ timer-trial  timer off '

keys t
check "Enter with the highlighted default, after arrows" wait_for 'what kind of work'
keys Up Enter Down Enter
check "Up from 'other' is 'optimization', Down from the last track wraps to 'no track'" \
	wait_cmd running '.running.category == "optimization" and .running.track == null'
check "no track shows as such" wait_for 'timer optimization · no track · '
keys j j j j
check "Tracks & effort shows the running timer" \
	wait_for '│   timer on +0:00:[0-9]{2} optimization, no track'
masked_screen | sed 's/^/  | /'
keys t
wait_cmd running '.running == null'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
