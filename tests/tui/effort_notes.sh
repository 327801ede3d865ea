#!/usr/bin/env bash
# Tracks & effort shows the record: the tracks, effort totals, the notes
# (time, track, tags, who wrote it, text; newest first; a name from git's
# config sanitised) and the intervals (who recorded them too); the content
# scrolls with j/k, PgDn/PgUp and g/G once it has focus.
. "$(dirname "$0")/lib/harness.bash"

new_trial effort-trial
GIT_AUTHOR_NAME="Eve Effort" mt effort start --track portability --category setup \
	"installing the Neuron SDK" >/dev/null
mt note "torch.compile needs a neuron backend" --tag compile --tag blocker >/dev/null
mt effort stop >/dev/null
for i in 2 3 4 5 6 7; do
	mt note "note number $i" --track optimized >/dev/null
done
# the author as git names it, with an escape sequence a terminal would obey
GIT_AUTHOR_NAME=$(printf 'Ada \033[2JL') mt note "note number 8" --track optimized >/dev/null
start_shell 80 24
start_wizard

keys j j j j
check "the step is open in the content" wait_for '│ Tracks & effort \(partial\)'
check "the tracks from the spec" wait_for '│   portability  ' &&
	check "... both of them" wait_for '│   optimized  '
check "effort totals by track and category" wait_for '│   portability +[0-9]+s  setup [0-9]+s'
check "the timer line says it is off" wait_for '│   timer +off \(t starts it\)'
check "notes are counted, newest first" wait_for '│ Friction notes \(8, newest first\)'
check "a note shows id, time, track and its author, sanitised" \
	wait_for '│   #8 [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}  optimized  by Ada .\[2JL$'
check "... and its text" wait_for '│      note number 8$'
check "the page is taller than the pane: the heading says which lines show" \
	wait_for '│ Tracks & effort \(partial\) +  ↓ 1-20 of [0-9]+$'

keys Enter j
check "Enter gives the content focus, j scrolls one line" wait_for '↑↓ 2-21 of [0-9]+$'
keys k
check "k scrolls back" wait_for '  ↓ 1-20 of [0-9]+$'
keys NPage
check "PgDn scrolls a page" wait_for '↑.? [0-9]+-[0-9]+ of [0-9]+$' &&
	check "... away from the top" wait_gone ' 1-20 of '
keys G
check "G shows the end: the oldest note with its tags (cut to the pane)" \
	wait_for '│   #1 [0-9-]+ [0-9:]+  portability #compile #b'
check "... its text" wait_for '│      torch.compile needs a neuron backend$'
check "... and the interval with its text" wait_for '│      installing the Neuron SDK$'
check "... who recorded it, under the line when the pane has no room beside it" \
	wait_for '│      by Eve Effort$'
check "... and the heading says so" wait_for '↑  [0-9]+-([0-9]+) of \1$'
keys g
check "g goes back to the top" wait_for '│ Tracks \(trial.yaml\)'
keys Tab j
check "Tab gives the list focus back: j moves to Summary" wait_for '│ Summary'
keys k
check "... and k back to Tracks & effort" wait_for '│ Tracks & effort'
masked_screen | sed 's/^/  | /'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
