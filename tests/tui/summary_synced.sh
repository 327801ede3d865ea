#!/usr/bin/env bash
# The Summary step says when the record last came and went with `mtrial
# sync`, with which remote and how many events from how many machines;
# a trial that never synced shows no such line.
. "$(dirname "$0")/lib/harness.bash"

new_trial synced-trial
git init -q --bare "$T/remote.git"
git -C "$REPO" remote add origin "$T/remote.git"
mt note "from this machine" >/dev/null
mt note "and another" >/dev/null

start_shell 80 24
start_wizard
keys G
check "the Summary step" wait_for '│ Verdict: '
check "never synced: no line" wait_gone '│   Synced with'
keys q
mt sync >/dev/null 2>&1
check "the sync is recorded" test -s "$REPO/.mtrial/synced"
start_wizard
keys G
check "synced: with whom, when, how much" \
	wait_for '│   Synced with origin just now \(2 events from 1$'
check "... wrapped in the panel" wait_for '│   machine\)$'
finish
