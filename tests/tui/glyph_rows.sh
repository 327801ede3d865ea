#!/usr/bin/env bash
# No row of '?' on any step at 80x24, in a UTF-8 locale and in the C
# locale: '?' is what the draw layer shows for a character it cannot draw,
# so a row of them reads as garbled text. A probe with every op unknown (the
# default table makes no per-op claim) draws its bar's unknown share as a
# progress bar's rest, not as '?'s; a note with characters beyond ASCII
# shows them in UTF-8, and in the C locale one '?' each, never one a byte.
# The Ops step is compared whole with a dump in each locale.
. "$(dirname "$0")/lib/harness.bash"

mkdir -p "$REPO"
cat >"$REPO/train.py" <<'PY'
import torch


def step(x, y):
    h = torch.matmul(x, y)
    h = torch.relu(h)
    return torch.sum(h)
PY
export GIT_AUTHOR_DATE=2026-01-02T03:04:05Z GIT_COMMITTER_DATE=2026-01-02T03:04:05Z
git init -q "$REPO"
git -C "$REPO" add -A
git -C "$REPO" -c user.name=t -c user.email=t@example.com commit -qm fixture
(cd "$REPO" && "$MTRIAL" init --repo "$REPO" --name glyph-trial) >/dev/null
mt scan >/dev/null
mt probe >/dev/null
mt note "bf16 → fp32 on 8× A100, café" >/dev/null
check "the probe has every op unknown" \
	test "$(mt report --format json | jq '.probe.summary.unknown == .probe.summary.ops and .probe.summary.ops > 0')" = true

no_question_rows() { ! screen | grep -q '???'; }

# every_step LOCALE: each step in turn, none with a row of '?'.
every_step() {
	local step
	for step in "Repository" "Ops & compatibility" "Correctness" "Runs & clocks" \
		"Tracks & effort" "Summary"; do
		wait_for "│ ${step//&/.} \("
		check "$1: no row of '?' in $step" no_question_rows
		keys j
	done
}

for loc in C.UTF-8 C; do
	start_shell 80 24 LANG=$loc LC_ALL=$loc
	start_wizard
	every_step "$loc"
	keys g j
	check "$loc: the Ops step at 80x24 matches expected/ops-unknown-80x24.$loc.txt" \
		same_screen "$EXPECTED/ops-unknown-80x24.$loc.txt"
	keys G
	keys Tab 5
	keys q
	check "$loc: q quits with status 0" wait_for '^wizard-exit=0$'
	tm kill-session -t "$SESSION"
done

# The note, by characters: whole in UTF-8, one '?' each in the C locale.
for loc in C.UTF-8 C; do
	start_shell 80 24 LANG=$loc LC_ALL=$loc
	start_wizard
	keys j j j j
	want='bf16 → fp32 on 8× A100, café'
	[ "$loc" = C ] && want='bf16 ? fp32 on 8? A100, caf?'
	check "$loc: the note shows as '$want'" shows "$want"
	keys q
	wait_for '^wizard-exit=0$'
	tm kill-session -t "$SESSION"
done
finish
