# mtrial breakeven from the trial's runs is per pair of topologies, never
# pooled: a baseline at 8 and at 32 devices against a candidate at 16 gives
# two break-evens, each of its own runs' medians and its own topology's
# price (per instance x hosts), in text, --json and the report.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name topo
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: topo
systems:
  baseline: {accelerator: H100, count: 8, price: {hourly: 10, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 4, currency: USD}}
YAML
# series CSV from the run's start: START s to the first step, then STEP s a step
series() { awk -v a="$1" -v b="$2" 'BEGIN { print "step,time,loss"; for (s = 1; s <= 200; s++) printf "%d,%.3f,2.0\n", s, a + (s - 1) * b }'; }
series 10 1.0 >"$T_TMP/b8.csv"
series 20 0.25 >"$T_TMP/b32.csv"
series 300 0.5 >"$T_TMP/c16.csv"
run_mt 0 runs import "$T_TMP/b8.csv" --system baseline --devices 8 --hosts 1
run_mt 0 runs import "$T_TMP/b32.csv" --system baseline --devices 32 --hosts 4
run_mt 0 runs import "$T_TMP/c16.csv" --system candidate --devices 16 --hosts 1

run_mt 0 breakeven --json
eq "$(json 'len(j["topologies"])')" 2 "two pairs, not one pooled"
eq "$(json '[(t["baseline_devices"], t["candidate_devices"]) for t in j["topologies"]]')" \
	"[(8, 16), (32, 16)]" "... each a topology of each system"
eq "$(json '[t["runs"]["baseline"] for t in j["topologies"]]')" "[[1], [2]]" "... of its own runs"
eq "$(json '[round(t["baseline"]["step_s"], 3) for t in j["topologies"]]')" "[1.0, 0.25]" \
	"... their own medians, not the median of both"
eq "$(json '[t["baseline"]["hourly_cost"] for t in j["topologies"]]')" "[10.0, 40.0]" \
	"... and their own topology's price (x hosts)"
eq "$(json 'j["topologies"][1]["steps"]')" None "32 devices: faster at every length, no crossing"
run_mt 0 breakeven
has "baseline 8 devices, candidate 16 devices:" "$OUT" "text: the first pair named"
has "baseline 32 devices, candidate 16 devices:" "$OUT" "text: the second"
has "never pooled" "$OUT" "text: says so"
run_mt 0 report --format md
has "Break-even, baseline 32 devices, candidate 16 devices" "$OUT" "the report: one per pair"
finish
