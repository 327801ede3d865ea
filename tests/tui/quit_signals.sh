#!/usr/bin/env bash
# Leaving the wizard restores the terminal: after q (exit status 0), after
# SIGTERM and after Ctrl-C (SIGINT; exit status 1, "interrupted") the pane is
# back at the shell prompt, off the alternate screen, with the tty modes it
# had before, and the shell takes commands.
. "$(dirname "$0")/lib/harness.bash"

new_trial quit-trial
start_shell 80 24

same_modes() { cmp -s "$T/stty.before" "$T/stty.after"; }

# back_at_shell TAG: the shell runs a command typed after the wizard left.
back_at_shell() {
	keys "echo back-$1-$$" Enter
	wait_for "^back-$1-$$\$"
}

start_wizard
keys q
check "q: exit status 0" wait_for '^wizard-exit=0$'
check "q: the tty modes are as before" wait_cmd same_modes
check "q: the wizard's screen is gone (alternate screen left)" wait_gone '│ Repository'
check "q: the shell takes commands" back_at_shell q

start_wizard
kill -TERM "$(wizard_pid)"
check "SIGTERM: the wizard says it was interrupted" wait_for '^mtrial: interrupted$'
check "SIGTERM: exit status 1" wait_for '^wizard-exit=1$'
check "SIGTERM: the tty modes are as before" wait_cmd same_modes
check "SIGTERM: the wizard's screen is gone" wait_gone '│ Repository'
check "SIGTERM: the shell takes commands" back_at_shell term

start_wizard
keys C-c
check "Ctrl-C: exit status 1" wait_for '^wizard-exit=1$'
check "Ctrl-C: the tty modes are as before" wait_cmd same_modes
check "Ctrl-C: the shell takes commands" back_at_shell int

start_wizard
keys n
text "half-typed"
kill -TERM "$(wizard_pid)"
check "SIGTERM in the middle of a note: exit status 1" wait_for '^wizard-exit=1$'
check "... the tty modes are as before" wait_cmd same_modes
check "... and the half-typed note was not saved" test "$(mt notes --json | jq length)" -eq 0
check "... the shell takes commands" back_at_shell prompt

finish
