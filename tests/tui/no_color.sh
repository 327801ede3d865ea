#!/usr/bin/env bash
# NO_COLOR (set and not empty) turns colours off: the screen then uses only
# bold and reverse video, and still shows the selection and the bars. An
# empty NO_COLOR, or none, leaves colours on.
. "$(dirname "$0")/lib/harness.bash"

new_trial color-trial

# The SGR parameters on the screen, one a line (capture-pane -e keeps them).
sgr_params() {
	tm capture-pane -e -p -t "$SESSION" | grep -oE $'\e\\[[0-9;]*m' |
		sed -E $'s/^\e\\[//; s/m$//' | tr ';' '\n' | sed '/^$/d' | sort -u
}
# Foreground or background colours: 30-38, 40-48, 90-97, 100-107 (39 and 49
# only reset to the terminal's own colours).
has_colors() { sgr_params | grep -qE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$'; }
no_colors() { ! has_colors; }
has_param() { sgr_params | grep -qx "$1"; }

run_with() {
	tm kill-session -t "$SESSION" 2>/dev/null
	start_shell 80 24 "$@"
	start_wizard
}

run_with NO_COLOR=1
check "NO_COLOR=1: no colours on the screen" no_colors
check "NO_COLOR=1: reverse video marks the bars and the selection" has_param 7
check "NO_COLOR=1: bold marks headings" has_param 1
keys j j j j Enter
check "NO_COLOR=1: still usable (the content gets focus)" wait_for '│ Tracks & effort'
check "NO_COLOR=1: and still without colours" no_colors
keys q
wait_for '^wizard-exit=0$'

run_with NO_COLOR=
check "NO_COLOR empty: colours" wait_cmd has_colors
keys q
wait_for '^wizard-exit=0$'

run_with
check "no NO_COLOR: colours" wait_cmd has_colors
keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
