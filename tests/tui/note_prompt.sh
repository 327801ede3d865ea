#!/usr/bin/env bash
# `n` opens a one-line prompt from any step: Enter saves the note through the
# journal (`mtrial notes --json` lists it and the wizard shows it), Esc
# cancels, and UTF-8 text survives typing and Backspace intact.
. "$(dirname "$0")/lib/harness.bash"

new_trial note-trial
start_shell 80 24
start_wizard

note_texts() { mt notes --json | jq -r '.[].text'; }

keys n
check "n opens the prompt in the message line" wait_for '^note: $|^note:$'
text "loss diverges with bf16 — naïve fix: 日本語"
check "the typed UTF-8 text shows in the prompt" \
	wait_for '^note: loss diverges with bf16 — naïve fix: 日本語$'
keys Enter
check "Enter saves it: the message says so" wait_for '^Note #1 saved$'
check "mtrial notes --json lists the exact text" \
	wait_cmd grep -qxF "loss diverges with bf16 — naïve fix: 日本語" <(note_texts)
keys j j j j
check "Tracks & effort shows the note" \
	wait_for '│      loss diverges with bf16 — naïve fix: 日本語$'

keys n
text "abc日本"
keys BSpace
check "Backspace removes a whole wide character" wait_for '^note: abc日$'
keys BSpace Enter
check "... so the saved text is valid UTF-8" wait_cmd grep -qxF "abc" <(note_texts)

keys n
text "never saved"
keys Escape
check "Esc cancels" wait_for '^Note cancelled: nothing saved$'
check "... and nothing was added" test "$(mt notes --json | jq length)" -eq 2

keys n Enter
check "an empty note is not saved" wait_for '^Empty note: nothing saved$'

long=$(printf 'word%02d ' $(seq 1 30))
keys n
text "$long"
check "a note longer than the line scrolls in the prompt" wait_for '^note: …'
keys Enter
check "... and is saved whole" wait_cmd grep -qxF "${long% }" <(note_texts)

keys g
check "n works from any step (here Repository)" wait_for '│ Repository'
keys n
text "from the first step"
keys Enter
check "... and saves" wait_cmd grep -qxF "from the first step" <(note_texts)
masked_screen | sed 's/^/  | /'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
