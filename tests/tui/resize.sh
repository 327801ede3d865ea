#!/usr/bin/env bash
# KEY_RESIZE recomputes the layout: 100x30 and back to 80x24 draw cleanly
# (the 80x24 screen is the same as a fresh start's), 60x16 still works with
# cut names, and below that the wizard says the terminal is too small.
. "$(dirname "$0")/lib/harness.bash"

new_trial frame-trial
start_shell 80 24
start_wizard
check "80x24 at start" same_screen "$EXPECTED/frame-80x24.txt"

resize() { tm resize-window -t "$SESSION" -x "$1" -y "$2"; }
# status_on_row N: the status line is row N of the screen.
status_on_row() { screen | sed -n "$1p" | grep -q '^ frame-trial  timer off'; }

resize 100 30
check "at 100x30 the status line moves to row 29" \
	wait_cmd status_on_row 29
check "... its hints end at column 100" wait_for '^ frame-trial  timer off {60,}\? help  q quit$'
check "the whole 100x30 screen matches expected/frame-100x30.txt" \
	same_screen "$EXPECTED/frame-100x30.txt"

resize 80 24
check "back at 80x24 the status line is on row 23" \
	wait_cmd status_on_row 23
check "... and the screen is the same as at start" same_screen "$EXPECTED/frame-80x24.txt"

resize 60 16
check "at 60x16 the narrow layout cuts long names with an ellipsis" \
	wait_for '^[ >]2 Ops & compatibi… ○ │'
check "... and the whole screen matches expected/frame-60x16.txt" \
	same_screen "$EXPECTED/frame-60x16.txt"

resize 50 12
check "below 60x16: terminal too small" \
	wait_for 'terminal too small \(need 60x16, have 50x12\)'
resize 80 24
check "growing again brings the frame back" wait_for '^[ >]6 Summary +. │'
check "... exactly as before" same_screen "$EXPECTED/frame-80x24.txt"

keys j j j j Enter '?'
wait_for '^ Help '
resize 100 30
check "help redraws across the whole width at 100x30" \
	wait_for '^   Up, k +move-up$'
resize 80 24
keys q
check "q closes the help after the resizes" wait_for '^ Steps '
keys C-l
check "Ctrl-L redraws the same screen" wait_for '^[ >]5 Tracks & effort +. │'
masked_screen | sed 's/^/  | /'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
