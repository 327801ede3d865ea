#!/usr/bin/env bash
# The wizard reads the latest scan's and probe's full results (every call
# site: megabytes on a large repository, seconds to read) only for what
# needs them: not before its first frame, which draws from the record's
# summaries; the Ops step draws once saying it reads the probe, then shows
# it; the Repository step's lists read the scan when asked. Shown here with
# the probe's artefact removed: the first frame has no word of it, the Ops
# step names what cannot be read, and the rest of the wizard works.
. "$(dirname "$0")/lib/harness.bash"

export XDG_CACHE_HOME=$T/cache
mkdir -p "$REPO"
printf 'import torch\nx = torch.zeros(3)\ny = torch.cumsum(x, 0)\nz = x.cuda()\n' >"$REPO/train.py"
new_trial lazy
git -C "$REPO" add train.py
git -C "$REPO" -c user.name=t -c user.email=t@example.com commit -qm fixture
sed -i "s/^  revision: .*/  revision: \"$(git -C "$REPO" rev-parse HEAD)\"/" "$REPO/.mtrial/trial.yaml"
mt scan >/dev/null
mt probe >/dev/null
# the probe's result, by the reference its event carries
REF=$(grep -ho '"result":{"object":"sha256:[0-9a-f]*' "$REPO"/.mtrial/events/*.jsonl |
	tail -1 | sed 's/.*sha256://')
OBJ=$REPO/.mtrial/objects/sha256/${REF:0:2}/${REF:2}
check "the probe's result is an artefact" test -f "$OBJ"
rm -f "$OBJ"

start_shell 100 30
start_wizard
check "the first frame draws the scan's summary" wait_for '│   calls +2 torch calls'
no_probe_word() { ! screen_has "cannot read the probe"; }
check "... and reads no probe: nothing said of the missing artefact" no_probe_word
keys j
check "the Ops step reads the probe, and names what it cannot read" \
	wait_for 'cannot read the probe'
check "... on the step too" wait_for 'Probe #[0-9]+ cannot be read\.'
keys k
keys o
check "the Repository step's list by op reads the full scan" wait_for 'aten::cumsum'
keys q
check "the wizard quits cleanly" wait_for 'wizard-exit=0'
finish
