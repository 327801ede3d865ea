#!/usr/bin/env bash
# `?` shows the help generated from the action table: every action in
# tui/actions.h appears with its keys and its help text; q, Esc and ? close it.
. "$(dirname "$0")/lib/harness.bash"

ACTIONS_H=$MT_SOURCE_DIR/tui/actions.h
mapfile -t names < <(grep -oE '^\s+_\([A-Z_]+, "[a-z-]+"' "$ACTIONS_H" | sed 's/.*"\(.*\)"/\1/')
check "actions.h lists actions (found ${#names[@]})" test "${#names[@]}" -ge 10

new_trial help-trial
start_shell 80 24
start_wizard

keys '?'
check "? opens the help" wait_for '^ Help '
check "help starts with the keys" wait_for '^ Keys  \(Esc, q or \? closes this help\)$'

# Page through the help, keeping every screen.
all=$T/help.txt
: >"$all"
for _ in $(seq 1 10); do
	screen >>"$all"
	screen | grep -Eq '^ Help .* ([0-9]+)-([0-9]+) of \2$' && break
	screen | grep -Eq '^ Help .* of ' || break # it all fits
	keys NPage
	sleep 0.3
done

for name in "${names[@]}"; do
	check "help lists the action '$name'" grep -Eq "^   [^ ].* +$name\$" "$all"
done
check "keys are named for people: Up, k" grep -Eq '^   Up, k +move-up$' "$all"
check "... Ctrl-L" grep -Eq '^   Ctrl-L +redraw$' "$all"
check "... Tab and Enter" grep -Eq '^   Tab +switch-focus$' "$all" &&
	check "... Enter" grep -Eq '^   Enter, Right, l +open-step$' "$all"
check "help texts come along" grep -q 'Add a friction note' "$all"
# proofread: a key is not a person ("unless i chose another")
helptext=$(sed 's/^ *//' "$all" | tr '\n' ' ' | tr -s ' ')
check "the probe's help says which source it takes" \
	grep -q 'the latest scan, unless another was chosen with i' <<<"$helptext"
check "... and no text says 'i chose'" eval '! grep -qi "unless i chose\|i chose" <<<"$helptext"'

keys q
check "q closes the help, not the wizard" wait_for '^ Steps '
keys '?'
wait_for '^ Help '
keys Escape
check "Esc closes it too" wait_for '^ Steps '
keys '?'
wait_for '^ Help '
keys '?'
check "? toggles it" wait_for '^ Steps '

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
