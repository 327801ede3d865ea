#!/usr/bin/env bash
# Runs & clocks, E: scaling, each system per device count as `mtrial
# scaling` gives it. Runs imported with --devices-free protocol logs are
# placed by trial.yaml's topologies: at the only one listed, and at none when
# two are (the page says why). E or Esc goes back.
. "$(dirname "$0")/lib/harness.bash"

new_trial scaling-trial
for s in $(seq 1 30); do echo "mtrial:step=$s loss=2.0 time_ms=$((1764496840000 + 1000 * s)) data_s=0.2"; done >"$T/run.log"
python3 - "$REPO/.mtrial/trial.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
at = s.index("    topologies:\n", s.index("\n  candidate:\n")) + len("    topologies:\n")
s = s[:at] + "      - devices: 16\n        hosts: 2\n" + s[at:]
open(p, "w").write(s)
PY
mt runs import --system candidate "$T/run.log" >/dev/null
cp "$T/run.log" "$T/run2.log" && printf '\n' >>"$T/run2.log" # a second attempt
mt runs import --system candidate "$T/run2.log" >/dev/null

start_shell 120 40
start_wizard
keys j j j Enter E
check "the page" wait_for '│ Scaling  each system per device count'
check "the candidate at its one topology, two runs" wait_for '│       16    2   0 '
check "the wait for data is shown" wait_for 'waiting for data 20%, communicating -'
check "the baseline has none" wait_for '│   No run with a device count\.'
keys E
check "E goes back to the list" wait_for '│ 2 attempts, newest first'

python3 - "$REPO/.mtrial/trial.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().replace("      - devices: 16\n        hosts: 2\n", "      - devices: 16\n        hosts: 2\n      - devices: 32\n        hosts: 4\n", 1)
open(p, "w").write(s)
PY
keys R E
check "two topologies: the runs are in neither, and why" \
	wait_for '2 runs without a device count: in no topology \(trial.yaml lists several'
keys Escape
check "Esc goes back too" wait_for '│ 2 attempts, newest first'
finish
