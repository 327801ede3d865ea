#!/usr/bin/env bash
# The Summary step: the verdict on top as `mtrial decide` gives it, with its
# summary; the criteria of trial.yaml as a checklist (met, not met,
# unknown); j/k select one and its evidence, source, threshold and what is
# missing with the command show below; an edit of trial.yaml changes the
# verdict while the wizard is open and the selection stays on its
# criterion. w writes report.md and report.html into the trial directory,
# the same report `mtrial report` renders; a report that cannot be written
# says why. The step's heading carries the verdict (NOT ENOUGH EVIDENCE,
# NO-GO, GO) rather than a status.
. "$(dirname "$0")/lib/harness.bash"

new_trial summary-trial
SPEC=$REPO/.mtrial/trial.yaml
cat >"$SPEC" <<'YAML'
schema: 1
name: summary-trial
quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}
criteria:
  - name: team-signoff
    kind: custom
    judgement: met
    evidence: "the ML lead reviewed the port"
  - name: porting-effort
    kind: effort
    threshold: 10
  - name: no-fallback
    kind: ops
YAML
mt effort add --duration 2h --track portability --category setup "SDK" >/dev/null
decide() { mt decide --json | jq -r "$1"; }
check "mtrial decide: not enough evidence, two met" \
	test "$(decide '[.verdict, (.criteria[] | .status)] | join(" ")')" = "NOT_ENOUGH_EVIDENCE met met unknown"

start_shell 80 24
start_wizard
keys G
check "the heading shows the verdict, not the step's status" \
	wait_for '│ Summary \(NOT ENOUGH EVIDENCE\)( |$)'
check "... nor (empty)" wait_gone '│ Summary \((empty|partial|done)\)'
check "the verdict on top, as mtrial decide has it" wait_for '│ Verdict: NOT ENOUGH EVIDENCE$'
check "... its summary" wait_for '│   2 of 3 criteria met, 0 not met, 1 unknown$'
check "the checklist: a met criterion" wait_for '│   \[x\] met     team-signoff \(custom\)$'
check "... another" wait_for '│   \[x\] met     porting-effort \(effort\)$'
check "... an unknown one" wait_for '│   \[\?\] unknown no-fallback \(ops\)$'
check "the first is selected: its evidence" \
	wait_for "│   evidence   the team's judgement: the ML lead$"
check "... its source" wait_for '│   source     trial.yaml criteria.0$'

keys Enter j
check "j selects the next criterion" wait_for '│ ── porting-effort: met ─'
check "... its threshold and value" wait_for '│   threshold  10, value 2$'
keys j
check "j again: the unknown one" wait_for '│ ── no-fallback: unknown ─'
check "... what is missing" wait_for '│   missing    a probe of the op inventory$'
check "... and the command that records it" wait_for '│              mtrial scan, then mtrial probe$'
keys j
check "j stays on the last" wait_for '│ ── no-fallback: unknown ─'
keys k
check "k goes back" wait_for '│ ── porting-effort: met ─'

# --- an edit of trial.yaml: the verdict follows, the selection stays ------------------
sed -i 's/judgement: met/judgement: not_met/' "$SPEC"
check "a criterion not met: NO-GO" wait_for '│ Verdict: NO-GO$'
check "... in the heading too" wait_for '│ Summary \(NO-GO\)( |$)'
check "... the row says not met" wait_for '│   \[!\] not met team-signoff \(custom\)$'
check "... the selection stayed on its criterion" wait_for '│ ── porting-effort: met ─'
check "mtrial decide says the same" test "$(decide .verdict)" = NO_GO

# --- the report ------------------------------------------------------------------------
keys w
check "w writes the report and says where" \
	wait_for '│   Written at [0-9:]{8}:$' &&
	check "... into the trial directory" wait_for "│   $T/repo/.mtrial/report.md and$"
check "... report.md holds the verdict" grep -q '^## Verdict: NO-GO$' "$REPO/.mtrial/report.md"
check "... report.html too" grep -q 'NO-GO' "$REPO/.mtrial/report.html"
check "... an html document" grep -qi '^<!doctype html' "$REPO/.mtrial/report.html"
check "... the same report mtrial report renders (but the time it was made)" \
	diff <(grep -v '^Generated ' "$REPO/.mtrial/report.md") <(mt report | grep -v '^Generated ')
rm -f "$REPO/.mtrial/report.md" && mkdir "$REPO/.mtrial/report.md"
keys w
check "a report that cannot be written says so" wait_for '│   Not written \([0-9:]{8}\):$' &&
	check "... and why, in the system's words" wait_for '│   .*/\.mtrial/report\.md: rename'
masked_screen | sed 's/^/  | /'
rmdir "$REPO/.mtrial/report.md"

# --- every criterion met: GO, in the heading as well ------------------------------------
sed -i -e 's/judgement: not_met/judgement: met/' -e '/no-fallback/,$d' "$SPEC"
check "every criterion met: GO" wait_for '│ Verdict: GO$'
check "... the heading says GO" wait_for '│ Summary \(GO\)( |$)'
check "mtrial decide says GO" test "$(decide .verdict)" = GO

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
