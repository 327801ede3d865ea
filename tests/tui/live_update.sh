#!/usr/bin/env bash
# The wizard rebuilds the record every 2 seconds: a note added by another
# process (`mtrial note` from the shell) appears while it is open, marked
# new, and the message line says where it came from.
. "$(dirname "$0")/lib/harness.bash"

new_trial live-trial
export GIT_AUTHOR_NAME="Ned Notes"
mt note "before the wizard" >/dev/null
start_shell 80 24
start_wizard

keys j j j j
check "the note made before is there" wait_for '│      before the wizard$'
check "the side list marks the step partial" wait_for '^[ >]5 Tracks & effort +◐ │'

mt note "added from another terminal" --track optimized --tag outside >/dev/null
check "a note from another process appears within a few seconds" \
	wait_for '│      added from another terminal$' 6
check "... with its track and tag, marked new (before its author, who then" \
	wait_for '│   #2 [0-9-]+ [0-9:]+  optimized #outside  new$'
check "... goes under the line: no room beside it)" wait_for '│      by Ned Notes$'
check "the message line says a note came in" wait_for '^1 new note from another terminal$'
check "the count follows" wait_for '│ Friction notes \(2, newest first\)'
check "the older note is not marked new" wait_for '│   #1 [0-9-]+ [0-9:]+  no track  by Ned Notes$'

keys j k
check "after leaving the step and coming back, nothing is new" \
	wait_for '│   #2 [0-9-]+ [0-9:]+  optimized #outside$'

mt note "two" >/dev/null
mt note "three" >/dev/null
# Usually one reload sees both ("2 new notes"), but a reload may fall
# between the two commands; the count is what must come out right.
check "more notes: the message counts them" wait_for '^[12] new notes? from another terminal$' 6
check "... and so does the list" wait_for '│ Friction notes \(4, newest first\)'

keys R
check "R reloads at once" wait_for '^Record reloaded$'
masked_screen | sed 's/^/  | /'
# the index made again in another terminal is another file: the wizard
# moves to it, and a note written there after shows
mt index --rebuild >/dev/null
mt note "after the rebuild" >/dev/null
check "after mtrial index --rebuild elsewhere, a new note still appears" \
	wait_for '│      after the rebuild$' 6
check "... and the count is whole" wait_for '│ Friction notes \(5, newest first\)'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
