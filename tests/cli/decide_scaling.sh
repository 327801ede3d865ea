# decide at a topology (issue 17, part 3): a time criterion whose system has
# runs at several device counts is unknown until it names one (devices: N),
# never judged on pooled runs; with devices: only the runs at that count, on
# both systems, decide it; device-hours is a criterion of its own, apart
# from turnaround: 8 devices can reach the target sooner and still cost more
# device-hours than 4.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name decide-scaling

# a run reaching eval_loss 2.0 at T seconds (one step a second, an eval at the end)
log() {
	for s in $(seq 1 "$1"); do echo "mtrial:step=$s loss=3.0 time_ms=$((1764496840000 + 1000 * s))"; done
	echo "mtrial:eval step=$1 eval_loss=2.0 time_ms=$((1764496840000 + 1000 * $1 + 1))"
}
log 100 >"$T_TMP/b8.log"   # the baseline at 8 devices: 100 s
log 120 >"$T_TMP/c4.log"   # the candidate at 4: 120 s (480 device-seconds)
log 80 >"$T_TMP/c8.log"    # and at 8: 80 s (640 device-seconds)
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: decide-scaling
quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}
criteria:
  - {name: faster, kind: time_to_quality, threshold: 1.0}
YAML
run_mt 0 runs import "$T_TMP/b8.log" --system baseline --devices 8
run_mt 0 runs import "$T_TMP/c4.log" --system candidate --devices 4
run_mt 0 runs import "$T_TMP/c8.log" --system candidate --devices 8
crit() { json "[c[\"$2\"] for c in j[\"criteria\"] if c[\"name\"]==\"$1\"][0]"; }

run_mt 1 decide --json
eq "$(crit faster status)" unknown "runs at 4 and 8 devices: not judged on pooled runs"
has "the candidate's runs are at several device counts" "$(crit faster evidence)" "and it says why"
has "criteria.0.devices" "$(json '[m["what"] for m in j["missing"]]')" "and what would settle it"

cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: decide-scaling
quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}
criteria:
  - {name: faster, kind: time_to_quality, threshold: 1.0, devices: 8}
  - {name: faster-at-4, kind: time_to_quality, threshold: 1.0, devices: 4}
  - {name: scarce, kind: device_hours, threshold: 1.0, devices: 8}
YAML
run_mt 1 decide --json
eq "$(crit faster status)" met "at 8 devices: 80 s against 100 s"
has "at 8 devices: " "$(crit faster evidence)" "the evidence names the topology"
eq "$(python3 -c "print(round($(crit faster value), 2))")" 0.8 "the ratio of the runs at 8 alone"
eq "$(crit faster-at-4 status)" unknown "no baseline run at 4 devices: unknown, not compared across topologies"
eq "$(crit scarce status)" met "device-hours at 8 devices: 640 against 800 device-seconds"
eq "$(crit scarce kind)" device_hours "a criterion of its own"
finish
