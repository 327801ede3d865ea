# The figures that depend on trial.yaml, read from real MLPerf logs the way
# a new user meets them (issue 13, the decision path):
#  - reaching the target, time and cost to it follow trial.yaml as it is
#    now: a changed threshold changes `runs`, `runs --json`, `decide` and
#    the report alike, and a journal written by an older mtrial (its target
#    frozen into the stored figures) is read the same way;
#  - one accounting boundary: an `mtrial run` attempt is priced from its
#    process's start to its end (one that dies before its first step too),
#    an imported MLPerf log from init_start;
#  - a finished run whose log never evaluates the target's metric is
#    neither failed nor short of the target, and says which metric it has;
#    a submission_benchmark that is not the workload is warned about;
#  - MLPerf train_loss points give clock 2 (the mean, as the throughput),
#    and the report shows MLPerf's minutes.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
echo "import torch" >"$R/train.py"
git -C "$R" add -A && git -C "$R" commit -qm init
cd "$R"
run_mt 0 init --name figures
D=$MT_SOURCE_DIR/tests/data/curves
RES0=$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt
# trial_yaml THRESHOLD [METRIC] [MODEL]
trial_yaml() {
	cat >.mtrial/trial.yaml <<YAML
schema: 1
name: figures
workload: {model: {name: ${3:-resnet50}}}
systems:
  baseline: {accelerator: H100, count: 4, hosts: 1, price: {hourly: 20, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 40, currency: USD}}
quality_target: {metric: ${2:-eval_accuracy}, threshold: $1, direction: higher}
criteria:
  - {name: quality, kind: quality}
  - {name: time, kind: time_to_quality, threshold: 2.0}
YAML
}

# --- 1. the target follows trial.yaml as it is now ------------------------------
trial_yaml 0.759
run_mt 0 runs import --system baseline "$RES0"
another_log "$RES0" "$T_TMP/res0-b.txt" # a second attempt: other bytes, the same figures
run_mt 0 runs import --system candidate "$T_TMP/res0-b.txt"
run_mt 0 runs --json
eq "$(json '[r["reached"] for r in j["runs"]]')" "[True, True]" "0.759 is reached (epoch 35)"
eq "$(json 'j["systems"]["candidate"]["reached"]')" 1 "per system: reached"
run_mt 0 decide --json
eq "$(json '[c["status"] for c in j["criteria"]]')" "['met', 'met']" "decide: both met"
# the threshold raised above the best evaluation (0.7597): nobody reaches it
trial_yaml 0.77
run_mt 0 runs --json
eq "$(json '[(r["reached"], r["outcome"], r["time_to_target_s"], r["cost_to_target"]) for r in j["runs"]]')" \
	"[(False, 'missed', None, None), (False, 'missed', None, None)]" \
	"runs --json: not reached once the threshold is raised, no time or cost to it"
eq "$(json 'j["runs"][0]["metrics"]["target"]["value"], j["systems"]["candidate"]["reached"], j["systems"]["candidate"]["missed"]')" \
	"0.77 0 1" "... the target block and the summary are today's"
run_mt 0 runs
check "runs: not reached" grep -Eq '^#2 +candidate .* not reached ' <<<"$OUT"
has "candidate: 1 run: 0 reached the target, 1 finished short of it, 0 without its metric in the log, 0 failed or aborted" \
	"$OUT" "runs: per system, by outcome"
run_mt 1 decide --json
eq "$(json '[c["status"] for c in j["criteria"]]')" "['not_met', 'not_met']" \
	"decide agrees: quality and time to quality both not met"
run_mt 0 report --format md
has "| not reached |" "$OUT" "report: not reached"
has "- candidate: 1 runs, 0 reached the target, 1 finished short of it" "$OUT" "report: the summary"
# a journal written by an older mtrial: the target (0.759, reached) frozen
# into the stored figures, no run_start or attempt
python3 - .mtrial/journal.db <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for rid, m in db.execute("SELECT id, metrics FROM runs").fetchall():
    m = json.loads(m)
    for k in ("run_start", "attempt", "params"):
        m.pop(k, None)
    m["target"] = {"metric": "eval_accuracy", "value": 0.759, "direction": "higher",
                   "reached": True, "from_run_start_s": 1604.925, "from_submission_s": 1660.87,
                   "at_step": None, "at_epoch": 35}
    db.execute("UPDATE runs SET metrics = ? WHERE id = ?", (json.dumps(m), rid))
db.commit()
PY
run_mt 0 runs --json
eq "$(json '[r["reached"] for r in j["runs"]]')" "[False, False]" "an old record's frozen 'reached' is ignored"
trial_yaml 0.759
run_mt 0 runs --json
eq "$(json 'j["runs"][0]["reached"], round(j["runs"][0]["time_to_target_s"], 3)')" "True 1604.925" \
	"... and its times still read when today's target is reached"

# --- 2. one accounting boundary --------------------------------------------------
run_mt 0 runs show 1 --json
eq "$(json 'j["accounting"]["from"], j["accounting"]["to"]')" "recorded_start recorded_end" \
	"an old record: the journal's start and end"
another_log "$T_TMP/res0-b.txt" "$T_TMP/res0-1.txt"
run_mt 0 runs import --system baseline "$T_TMP/res0-1.txt"
run_mt 0 runs show 3 --json
eq "$(json 'j["accounting"]["from"], j["metrics"]["attempt"]["start_ms"]')" "init_start 1695413551602" \
	"an MLPerf log: from init_start"
eq "$(json 'abs(j["cost"] - 20 * (j["metrics"]["attempt"]["end_ms"] - 1695413551602) / 3600000) < 1e-9')" True \
	"... to its end, at the hourly price"
eq "$(json 'abs(j["cost_to_target"] - 20 * j["time_to_target_from_submission_s"] / 3600) < 1e-9')" True \
	"... and the cost to the target from the same start"
# an attempt that dies before its first step still holds its devices
run_mt 1 run --system candidate -- sh -c 'sleep 1; exit 3'
run_mt 0 runs show 4 --json
eq "$(json 'j["status"], j["accounting"]["from"], j["accounting"]["to"]')" "failed submission process_end" \
	"mtrial run: the process's start to its end"
eq "$(json 'j["accounting"]["hours"] * 3600 >= 1, j["cost"] > 0, j["device_hours"] > 0')" "True True True" \
	"... a run that died before its first step has a cost"
run_mt 0 report --format md
has "counted from
submission to the end of the attempt" "$OUT" "the report states the boundary"

# --- 4. a log without the target's metric; another benchmark --------------------
trial_yaml 2.0 eval_loss llama-3-8b
another_log "$T_TMP/res0-1.txt" "$T_TMP/res0-2.txt"
run_mt 0 runs import --system candidate "$T_TMP/res0-2.txt"
has "never evaluates the target's metric eval_loss (it evaluates eval_accuracy)" "$ERR" \
	"import: the metric the log does carry"
has "submission_benchmark is 'resnet', but trial.yaml's workload.model.name is 'llama-3-8b'" "$ERR" \
	"import: another workload"
run_mt 0 runs --json
eq "$(json '[r["outcome"] for r in j["runs"]]')" \
	"['no_metric', 'no_metric', 'no_metric', 'failed', 'no_metric']" "outcomes: no metric, the failed run failed"
eq "$(json 'j["systems"]["baseline"]["failed"], j["systems"]["baseline"]["no_metric"], j["systems"]["baseline"]["missed"]')" \
	"0 2 0" "successful runs without the metric are not failed, nor missed"
eq "$(json '[r["reached"] for r in j["runs"]]')" "[None, None, None, None, None]" "reached: not known"
run_mt 0 runs
has "no metric" "$OUT" "runs: no metric"
has "#5: warning: the log never evaluates the target's metric eval_loss (it evaluates eval_accuracy)" "$OUT" \
	"runs: the warning"
run_mt 1 decide --json
eq "$(json 'j["criteria"][0]["status"]')" unknown "decide: unknown, not not met"
has "never evaluate eval_loss: their logs evaluate eval_accuracy" "$(json 'j["criteria"][0]["evidence"]')" \
	"decide: says which metric the logs carry"
run_mt 0 report --format md
has "| baseline | 2 | 0 | 0 | 0 | 0 | " "$OUT" "report: nothing filed as failed or short for the baseline"
has "- warning, run #5: the log never evaluates" "$OUT" "report: the warning"

# --- 5. MLPerf train_loss points: clock 2; MLPerf minutes ------------------------
python3 - "$T_TMP/lora.txt" <<'PY'
import json, sys
t0, out = 1712000000000, []
def ev(t, k, v=None, **md):
    out.append(":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": "POINT_IN_TIME",
                                         "key": k, "value": v, "metadata": md}))
ev(t0, "submission_benchmark", "llama2_70b_lora")
ev(t0, "init_start"); ev(t0, "global_batch_size", 8); ev(t0 + 90000, "init_stop")
ev(t0 + 90000, "run_start")
for i in range(1, 41):
    ev(t0 + 90000 + i * 2000 + (300 if i == 30 else 0), "train_loss", 2.5 - i * 0.02, samples_count=8 * i)
ev(t0 + 90000 + 41 * 2000, "run_stop", None, status="success")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
run_mt 0 runs import --system baseline "$T_TMP/lora.txt"
run_mt 0 runs show 6 --json
eq "$(json 'j["metrics"]["steady"]["interval"], j["steady_statistic"], j["metrics"]["steady"]["statistic"]')" \
	"step mean mean" "train_loss points are steps; clock 2 says its statistic"
eq "$(json 'abs(j["steady_step_s"] * j["throughput"]["value"] - 8) < 1e-9')" True \
	"clock 2 and the throughput use the same mean (step x samples/s = the global batch)"
run_mt 0 report --format md
has "| 1.37 |" "$OUT" "report: MLPerf minutes of the run"
has "MLPerf minutes (run_stop - run_start) median" "$OUT" "report: per system"
# --- an attempt that reached the target and then was aborted ---------------------
# (MLPerf's resnet result_2: eval_accuracy passes 0.3 early, run_stop aborted)
trial_yaml 0.3
run_mt 0 runs import --system baseline "$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt"
run_mt 0 runs --json
eq "$(json '[(r["outcome"], r["reached"]) for r in j["runs"] if r["status"] == "aborted"]')" "[('failed', True)]" \
	"aborted after reaching the target: failed, and the log's reaching kept"
ab=$(json '[r["id"] for r in j["runs"] if r["status"] == "aborted"][0]')
run_mt 0 runs show "$ab"
has "but the attempt ended aborted: counted as failed" "$OUT" "runs show: reached, then aborted, never 'did not reach'"
check "runs show never says it did not reach the target" bash -c '! grep -q "did not reach" <<<"$1"' _ "$OUT"
finish
