#!/usr/bin/env bash
# A finding (r in the Ops step) about an op libtorch's operator registry
# lacks is recorded with the warning `mtrial override` gives, from the same
# core check, in the message line; a registered op gets none.
. "$(dirname "$0")/lib/harness.bash"

new_trial finding-trial
cat >"$T/ops.json" <<'JSON'
{"format": "mtrial-optrace", "version": 1, "torch": "2.1.0", "steps": 1,
 "ops": [{"op": "aten::foo_bar", "count": 2}, {"op": "aten::add", "overload": "Tensor", "count": 3}]}
JSON
mt ops show "$T/ops.json" >/dev/null
mt probe --from trace >/dev/null

start_shell 80 24
start_wizard
keys j Enter
check "the Ops step lists the trace's ops" wait_for '│ [DPCU?] aten::foo_bar +2 '
keys /
text foo_bar
keys Enter
keys r
check "r asks for its status" wait_for 'aten::foo_bar on the candidate:'
keys 1
wait_for '^note '
text "seen on 2.99"
keys Enter
check "recorded, with the CLI's warning first in the message line" \
	wait_for '^warning: aten::foo_bar is not in the operator registry of libtorch'
check "... recorded all the same" \
	test "$(sqlite3 "$REPO/.mtrial/journal.db" "select op || ' ' || status from op_overrides")" = "aten::foo_bar device"
warning=$(mt override aten::foo_bar device --note "again" 2>&1 >/dev/null)
check "the CLI's warning is the same check's ($warning)" \
	bash -c "case \"\$1\" in *'aten::foo_bar is not in the operator registry of libtorch'*) ;; *) exit 1;; esac" _ "$warning"
keys /
keys C-u
text aten::add
keys Enter
keys r 1
wait_for '^note '
text "fine on 2.14"
keys Enter
check "a registered op: no warning" \
	wait_for '^Finding #[0-9]+ recorded: aten::add is device; probe #[0-9]+ shows it$'
tm resize-window -t "$SESSION" -x 80 -y 16
check "80x16: the message line still shows" wait_for '^Finding #[0-9]+ recorded'
keys q
check "q quits" wait_for '^wizard-exit=0$'
finish
