# Scaling (issue 17): one workload at several topologies, never pooled. The
# real MLPerf v3.1 SSD logs of NVIDIA's eos at 1, 8 and 256 nodes (8, 64 and
# 2,048 H100s, each size with its system description) give one row per
# device count, each over its own runs; the figures are checked against
# run_start/run_stop read from the logs here, not against numbers typed in.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
# the public logs beside the repository, as CI lays them out
# (../shared/data/mllog, with their source in its README)
D=${MTRIAL_MLLOG_DATA:-$MT_SOURCE_DIR/../shared/data/mllog}/scaling-ssd-v3.1
if [ ! -f "$D/eos_ngc23.09_pytorch/system.json" ]; then
	echo "scaling: no MLPerf logs at $D; nothing compared"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
new_repo "$R" && cd "$R"
run_mt 0 init --name ssd-scaling

for d in eos_ngc23.09_pytorch eos_n8_ngc23.09_pytorch eos_n256_ngc23.09_pytorch; do
	run_mt 0 runs import "$D/$d"/result_*.txt "$D/$d/system.json" --system baseline
done

# the medians of MLPerf's own minutes, per directory, from the logs
expect() {
	python3 - "$D/$1" <<'PY'
import glob, json, statistics, sys
mins = []
for f in sorted(glob.glob(sys.argv[1] + "/result_*.txt")):
    t = {}
    for line in open(f, errors="replace"):
        if ":::MLLOG" in line:
            e = json.loads(line.split(":::MLLOG", 1)[1])
            if e["key"] in ("run_start", "run_stop") and e["key"] not in t:
                t[e["key"]] = e["time_ms"]
    mins.append((t["run_stop"] - t["run_start"]) / 1000)
print(round(statistics.median(mins), 3))
PY
}
T8=$(expect eos_ngc23.09_pytorch)
T64=$(expect eos_n8_ngc23.09_pytorch)
T2048=$(expect eos_n256_ngc23.09_pytorch)

run_mt 0 scaling --json
eq "$(json "[r['devices'] for r in j['systems']['baseline']['topologies']]")" "[8, 64, 2048]" "one row per device count, smallest first"
eq "$(json "[r['runs'] for r in j['systems']['baseline']['topologies']]")" "[5, 5, 3]" "each over its own runs"
eq "$(json "[r['hosts'] for r in j['systems']['baseline']['topologies']]")" "[1, 8, 256]" "hosts from the system descriptions"
eq "$(json "[round(r['median_time_s'], 3) for r in j['systems']['baseline']['topologies']]")" "[$T8, $T64, $T2048]" "the median of each topology's own MLPerf minutes"
eq "$(json "j['systems']['baseline']['topologies'][0]['time_basis']")" mlperf_minutes "no target in trial.yaml: MLPerf's minutes, named"
eq "$(json "round(j['systems']['baseline']['topologies'][1]['scaling_efficiency'], 6)")" \
	"$(python3 -c "print(round(8 * $T8 / (64 * $T64), 6))")" "(D0 T0) / (D T) against 8 devices"
eq "$(json "round(j['systems']['baseline']['topologies'][2]['device_hours_at_median'], 6)")" \
	"$(python3 -c "print(round(2048 * $T2048 / 3600, 6))")" "device-hours at the median"
eq "$(json "j['systems']['baseline']['several_topologies']")" True "several topologies are said"
eq "$(json "j['systems']['baseline']['accelerator']")" "NVIDIA H100-SXM5-80GB" "the accelerator from the descriptions"
has "2048 devices finish (MLPerf time)" "$(json "j['systems']['baseline']['tradeoff']")" "the trade-off, stated"
run_mt 0 scaling --system baseline
has "3 topologies: every figure is per topology, never pooled." "$OUT" "the text says so"
has "Times are MLPerf's run minutes" "$OUT" "and what the times are"
# runs --json carries the same grouping, and pools no time across topologies
run_mt 0 runs --json
eq "$(json "[t['devices'] for t in j['systems']['baseline']['topologies']]")" "[8.0, 64.0, 2048.0]" "runs --json: per device count"
eq "$(json "round(j['systems']['baseline']['topologies'][1]['summary']['run_minutes']['median'] * 60, 3)")" "$T64" "each with its own summary"
eq "$(json "j['systems']['baseline']['run_minutes']['median'], j['systems']['baseline']['several_topologies']")" "None True" \
	"the pooled median over 8, 64 and 2,048 devices is not given"
run_mt 0 runs
has "runs at several device counts: times per topology in mtrial scaling, never pooled" "$OUT" "runs says so"
run_mt 2 scaling --system gpu
has "--system: 'gpu' is not baseline or candidate" "$ERR" "a bad system is named"

# trial.yaml's topologies: a run without its own device count is counted at
# the only topology its system lists, and at none when it lists several
L=$T_TMP/proto.log
for s in $(seq 1 30); do echo "mtrial:step=$s loss=2.0 time_ms=$((1764496840000 + 1000 * s))"; done >"$L"
python3 - .mtrial/trial.yaml <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
at = s.index("    topologies:\n", s.index("\n  candidate:\n")) + len("    topologies:\n")
s = s[:at] + "      - devices: 16\n        hosts: 1\n" + s[at:]
open(p, "w").write(s)
PY
run_mt 0 spec
run_mt 0 runs import "$L" --system candidate
run_mt 0 scaling --system candidate --json
eq "$(json "[r['devices'] for r in j['systems']['candidate']['topologies']]")" "[16]" "the only topology"
python3 - .mtrial/trial.yaml <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().replace("      - devices: 16\n        hosts: 1\n", "      - devices: 16\n        hosts: 1\n      - devices: 32\n        hosts: 2\n", 1)
open(p, "w").write(s)
PY
run_mt 0 scaling --system candidate --json
eq "$(json "j['systems']['candidate']['topologies']")" "[]" "two topologies and a run without devices: in neither"
eq "$(json "j['systems']['candidate']['runs_with_ambiguous_topology']")" 1 "and counted as such"
run_mt 0 scaling --system candidate
has "trial.yaml lists several topologies" "$OUT" "the text says why"
finish
