#!/usr/bin/env bash
# Runs & clocks, E: the scaling page with runs of both designs (issue 20).
# The matched runs are one table, the best-recipe runs another, each
# labelled, never pooled, as `mtrial scaling` and `mtrial scaling --design
# best` give them; with no best-recipe run the page has no design labels.
. "$(dirname "$0")/lib/harness.bash"

new_trial scaling-designs
cat >"$REPO/.mtrial/trial.yaml" <<'YAML'
schema: 1
name: scaling-designs
systems:
  baseline: {accelerator: A100, count: 8, hosts: 1}
  candidate: {accelerator: Trainium2, count: 8, hosts: 1}
precision:
  weights: fp32
  best: {candidate: {weights: bf16, activations: fp8}}
YAML
python3 "$MT_SOURCE_DIR/tests/data/runs/seq_series.py" "$T/c120.csv"
sed 's/(120 if/(40 if/' "$MT_SOURCE_DIR/tests/data/runs/seq_series.py" >"$T/seq40.py"
python3 "$T/seq40.py" "$T/c40.csv"
python3 "$T/seq40.py" "$T/c40b.csv" && printf '\n' >>"$T/c40b.csv" # another attempt
mt runs import "$T/c120.csv" --system candidate --devices 8 >/dev/null 2>&1
cli=$(mt scaling --json | jq -c '[.systems.candidate.topologies[] | [.devices, .runs]]')
check "mtrial scaling: the matched run alone at 8 devices" test "$cli" = '[[8,1]]'

start_shell 80 24
start_wizard
keys j j j Enter E
check "the page" wait_for '│ Scaling  each system per device count'
check "the candidate's matched run" wait_for '│        8    1   0 '
check "no design labels with one design" wait_gone 'Matched recipe|Best recipe'

mt runs import "$T/c40.csv" --system candidate --devices 8 --design best >/dev/null 2>&1
mt runs import "$T/c40b.csv" --system candidate --devices 8 --design best >/dev/null 2>&1
best=$(mt scaling --design best --json | jq -c '[.systems.candidate.topologies[] | [.devices, .runs]]')
check "mtrial scaling --design best: two runs at 8 devices" test "$best" = '[[8,2]]'
keys R
check "the matched table is labelled" wait_for '│ ── Matched recipe \(precision\) ─'
check "... its one run, the best ones not pooled in" wait_for '│        8    1   0 '
keys j j j j j j j j j j j j j j
check "the best recipe's table of its own" wait_for '│ ── Best recipe \(precision.best\) ─'
check "... what it is" wait_for "│   Each system's own best recipe: another$"
check "... its two runs at 8 devices" wait_for '│        8    2   0 '
keys E
check "E goes back to the list" wait_for '│ 3 attempts, newest first'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
