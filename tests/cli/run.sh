# mtrial run and mtrial runs: a fake training command run as a child, its
# output passed through and kept line by line with its time; failed,
# interrupted and unstartable attempts kept, never dropped; the list and one
# run, as text and JSON; rehearsals recorded, marked and left unpriced; bad
# usage.
. "$MT_SOURCE_DIR/tests/lib.sh"
R=$T_TMP/repo
new_repo "$R"
cd "$R" || exit 1
run_mt 0 init --name run-test
cat >"$T_TMP/train.sh" <<'SH'
#!/bin/sh
# a training loop's output: steps on stdout, a warning on stderr, no final newline
echo "mtrial:step=1 loss=2.50 tokens=1024"
echo "compiling graph for a new shape" >&2
echo "mtrial:step=2 loss=2.30 tokens=1024"
printf "mtrial:eval step=2 eval_loss=2.20"
exit "${1:-0}"
SH
chmod +x "$T_TMP/train.sh"

run_mt 0 run --system baseline --track portability --label first -- "$T_TMP/train.sh"
has "mtrial:step=2 loss=2.30" "$OUT" "output passed through (stdout)"
has "compiling graph for a new shape" "$ERR" "output passed through (stderr)"
has "run #1 success (exit status 0, 4 lines" "$ERR" "the end is said"
LOG=$(ls .mtrial/runs/*-baseline.log)
eq "$(wc -l <"$LOG" | tr -d ' ')" 4 "every line kept, the unterminated last one too"
check "lines are EPOCH_MS o|e TEXT" grep -Eq '^[0-9]{13} o mtrial:step=1 loss=2.50 tokens=1024$' "$LOG"
check "stderr lines tagged e" grep -Eq '^[0-9]{13} e compiling graph' "$LOG"

run_mt 1 run --track optimized -- "$T_TMP/train.sh" 3
has "run #2 failed (exit status 3" "$ERR" "a failed attempt"
run_mt 1 run -- /nonexistent/train
has "run #3 failed (exit status 127" "$ERR" "a command that cannot start is a failed attempt"

# Ctrl-C: the command's group gets SIGINT, the attempt is kept as aborted
"$MTRIAL" run --label interrupted -- sh -c 'echo started; sleep 60; echo never' >"$T_TMP/int.out" 2>"$T_TMP/int.err" &
pid=$!
for _ in $(seq 50); do grep -q started "$T_TMP/int.out" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
eq "$?" 130 "an interrupted run exits 130 (128 + SIGINT)"
check "the command was stopped" sh -c "! grep -q never '$T_TMP/int.out'"
has "run #4 aborted" "$(cat "$T_TMP/int.err")" "interrupted attempt kept"

# mtrial killed outright (kill -9): the attempt cannot record its end, and
# reads as lost, not as running forever
"$MTRIAL" run --label killed -- sleep 37.25 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do
	[ "$(sqlite3 .mtrial/journal.db "select count(*) from runs where label='killed'")" = 1 ] && break
	sleep 0.1
done
kill -9 "$pid"; wait "$pid" 2>/dev/null
pkill -f "sleep 37.25"
run_mt 0 runs show 5 --json
eq "$(json 'j["status"], "killed, crashed or rebooted" in j["note"]')" "lost True" "a run whose mtrial died is lost"
sqlite3 .mtrial/journal.db "delete from runs where label='killed'"

run_mt 0 runs --json
eq "$(json '[(r["id"], r["system"], r["track"], r["status"], r["exit_status"]) for r in j["runs"]]')" \
	"[(1, 'baseline', 'portability', 'success', 0), (2, 'candidate', 'optimized', 'failed', 3), (3, 'candidate', None, 'failed', 127), (4, 'candidate', None, 'aborted', 130)]" \
	"every attempt, failed ones too"
eq "$(json 'j["runs"][0]["label"], j["runs"][0]["command"].endswith("train.sh"), j["runs"][0]["source"].endswith("-baseline.log")')" \
	"first True True" "label, command and log recorded"
eq "$(json 'all(r["started"].endswith("Z") and r["ended"].endswith("Z") for r in j["runs"])')" True "ISO 8601 times"
run_mt 0 runs
has "aborted" "$OUT" "text list"
run_mt 0 runs show 2 --json
eq "$(json 'j["status"], j["track"]')" "failed optimized" "one run as JSON"
run_mt 0 runs show 1; has "label    first" "$OUT" "one run as text"
run_mt 2 runs show 99; has "no run #99" "$ERR" "an unknown run"
run_mt 2 runs show x; has "expected a run id" "$ERR" "a bad id"

run_mt 0 report
has "4 attempts recorded: 3 failed or aborted" "$OUT" "report: every attempt counted"
has "| #4 interrupted | candidate | matched |  | aborted (130) |" "$OUT" "report: the aborted attempt listed"

# --- the figures: a trial with a target and prices, a run with a stall ---------
R2=$T_TMP/repo2
new_repo "$R2"
cd "$R2" || exit 1
run_mt 0 init --name figures
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: figures
systems:
  baseline: {accelerator: A100, count: 8, hosts: 2, price: {hourly: 36, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 45, currency: USD}}
quality_target: {metric: eval_loss, threshold: 2.2, direction: lower}
YAML
run_mt 0 run --system baseline -- "$MT_SOURCE_DIR/tests/data/runs/loop.sh"
run_mt 0 runs show 1 --json
eq "$(json '0.4 <= j["clock1_s"] < 2.0')" True "clock 1: submission to the first step holds the start-up"
eq "$(json '0.04 <= j["steady_step_s"] < 0.3')" True "clock 2: the steady step, not the stall"
eq "$(json '[x["step"] for x in j["metrics"]["stalls"]]')" "[9]" "the 600 ms step is listed as a stall"
eq "$(json 'j["reached"], j["metrics"]["target"]["at_step"]')" "True 8" "eval_loss <= 2.2 first met at step 8"
eq "$(json 'j["devices"]')" 16.0 "devices: 8 per host x 2 hosts"
eq "$(json 'abs(j["cost_to_target"] - 36 * 2 * j["time_to_target_from_submission_s"] / 3600) < 1e-9')" True \
	"cost to target: the hourly price per instance x 2 hosts x the time from submission to the target"
eq "$(json 'j["accounting"]["from"], j["accounting"]["to"]')" "submission process_end" \
	"the accounting boundary of mtrial run: the process's start to its end"
eq "$(json 'j["metrics"]["attempt"]["start_ms"] < j["metrics"]["first_ms"]')" True \
	"... start-up before the first line is counted"
eq "$(json 'abs(j["device_hours"] - 16 * (j["metrics"]["attempt"]["end_ms"] - j["metrics"]["attempt"]["start_ms"]) / 3600000) < 1e-9')" True \
	"device-hours: devices x the attempt's hours"
run_mt 0 runs show 1; has "stall    step 9" "$OUT" "text: the stall"
has "target   eval_loss <= 2.2: reached" "$OUT" "text: the target as trial.yaml sets it now"

# imported runs: two MLPerf ResNet logs of one system (one aborted), and logs
# without training events
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: figures
systems:
  baseline: {accelerator: H100, count: 4, hosts: 1, price: {hourly: 20, currency: USD}}
quality_target: {metric: eval_accuracy, threshold: 0.759, direction: higher}
YAML
D=$MT_SOURCE_DIR/tests/data/curves
run_mt 0 runs import --system baseline "$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt" \
	"$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt"
has "as run #2 (baseline, success" "$OUT" "the converged run imported"
has "as run #3 (baseline, aborted" "$OUT" "the aborted run imported as aborted"
run_mt 0 runs --json
expected=$(python3 - "$D" <<'PY'
import json, sys
def events(path):
    for line in open(path):
        if ":::MLLOG" in line:
            yield json.loads(line.split(":::MLLOG", 1)[1])
for n in (0, 2):
    ev = list(events(f"{sys.argv[1]}/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_{n}.txt"))
    t = {e["key"]: e["time_ms"] for e in ev if e["key"] in ("run_start", "run_stop")}
    print(round((t["run_stop"] - t["run_start"]) / 60000, 6), end=" ")
PY
)
eq "$(json '" ".join(str(round(r["run_minutes"], 6)) for r in j["runs"][1:]) + " "')" "$expected" \
	"MLPerf minutes exactly (run_stop - run_start) / 60000"
eq "$(json '[r["reached"] for r in j["runs"][1:]]')" "[True, False]" "the aborted run did not reach the target"
eq "$(json 'j["systems"]["baseline"]["runs"], j["systems"]["baseline"]["failed"]')" "3 1" \
	"per system: the runs and the failed attempts"
printf 'epoch 1 done\nnothing here\n' >"$T_TMP/plain.log"
run_mt 2 runs import "$T_TMP/plain.log"; has "no training events in it" "$ERR" "a log without events"
run_mt 2 runs import "$T_TMP/none.log"; has "none.log" "$ERR" "a missing log"
run_mt 2 runs import; has "no log to import" "$ERR" "nothing to import"
run_mt 0 runs --json; eq "$(json 'len(j["runs"])')" 3 "bad imports recorded nothing"
run_mt 0 report
has "| #2 | baseline | matched |  | success |" "$OUT" "report: the imported run"
has "| #3 | baseline | matched |  | aborted |" "$OUT" "report: the aborted MLPerf run"
# run #1 evaluated eval_loss, the target is now on eval_accuracy: neither
# reached (as it was when recorded) nor missed
has "- baseline: 3 runs, 1 reached the target, 0 finished short of it, 1 without its metric in the log, 1 failed or aborted" "$OUT" "report: the system's summary"
has "median time to target" "$OUT" "report: the median time to target"

# --- series (CSV, JSON Lines) and MLPerf system descriptions ----------------------
R3=$T_TMP/repo3
new_repo "$R3"
cd "$R3" || exit 1
run_mt 0 init --name series
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: series
systems:
  baseline: {accelerator: H100, count: 4, hosts: 1, price: {hourly: 20, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 44, currency: USD}}
workload: {token_unit: target}
quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}
YAML
RD=$MT_SOURCE_DIR/tests/data/runs
# the system description may come after the logs it describes
run_mt 0 runs import --system candidate "$RD/series.csv" "$RD/Dell_systems_2xXE9680x8H100-SXM-80GB.json"
has "as run #1 (candidate, success, 3 warnings)" "$OUT" "a CSV series imported, its bad rows counted"
has "2 node(s) x 8 NVIDIA H100-SXM5-80GB = 16 devices" "$OUT" "the topology said"
has "series.csv:18: step '15.5' is not a whole number >= 0; row skipped" "$ERR" "a bad step named by file:line"
has "series.csv:20: an unterminated quote; row skipped" "$ERR" "a bad quote named by file:line"
has "series.csv:38: loss 'oops' is not a number; row skipped" "$ERR" "a bad loss named by file:line"
run_mt 0 runs show 1 --json
eq "$(json 'j["metrics"]["steps"], j["metrics"]["warnings"]')" "40 3" "every good row a step (the bad ones skipped)"
eq "$(json 'j["clock1_s"]')" 12.25 "clock 1: the series' time 0 to its first step"
eq "$(json '[x["step"] for x in j["metrics"]["stalls"]]')" "[25]" "the 2 s step is a stall"
eq "$(json 'j["metrics"]["target"]["at_step"], round(j["time_to_target_s"], 3)')" "30 9.0" \
	"eval_loss 2.05 at step 30 (21.25 s) meets 2.1, 9 s after the first step"
eq "$(json 'j["throughput"]["unit"], round(j["metrics"]["steady"]["padding_fraction"], 4)')" \
	"target tokens/s 0.2676" "throughput in the declared unit; padding 1 - 3000/4096"
eq "$(json 'j["devices"], j["devices_from"].startswith("system description ")')" "16.0 True" \
	"devices from the system description, not trial.yaml's 16 x 1"
eq "$(json 'abs(j["device_hours"] - 16 * (j["metrics"]["last_ms"] - j["metrics"]["first_ms"]) / 3600000) < 1e-9')" True \
	"device-hours: the description's devices x the run's hours"
run_mt 0 runs show 1
has "target tokens/s, 26.8% of the positions not counted (padding)" "$OUT" "text: the unit and the padding"
has "(when it was imported: the log's times count from its own start and carry no date)" "$OUT" \
	"text: a series in seconds since its start is dated by its import, and says so"

run_mt 0 runs import --json --system baseline "$RD/series.jsonl"
eq "$(json 'j["imported"], j["topology"]')" "[2] None" "a JSON Lines series"
has "series.jsonl:14: not a JSON object" "$ERR" "a truncated line named by file:line"
has 'series.jsonl:23: "loss" is neither a number nor text' "$ERR" "a bad value named by file:line"
run_mt 0 runs show 2 --json
eq "$(json 'j["started"], j["metrics"]["steps"]')" "2026-11-20T14:00:00Z 31" \
	"ISO 8601 times with an offset (16:00+02:00) and Z"
eq "$(json 'j["metrics"]["target"]["at_step"], j["time_to_target_s"], j["devices_from"]')" \
	"30 51.0 trial.yaml systems.baseline count x hosts" "time to target from ISO times; devices from trial.yaml"
run_mt 0 runs show 2
hasnt "when it was imported" "$OUT" "a series with dates keeps its own start, without the remark"

# offsets written +HH:MM, -HHMM and +HH all give the same instant
printf '%s\n' '{"step": 1, "time": "2026-11-20T08:30:00-0530"}' '{"step": 2, "time": "2026-11-20T16:00:01+02"}' \
	'{"step": 3, "time": "2026-11-20T15:00:02.5+01:00", "eval_loss": 2.0}' >"$T_TMP/offsets.jsonl"
run_mt 0 runs import --json "$T_TMP/offsets.jsonl"
run_mt 0 runs show "$(json 'j["imported"][0]')" --json
eq "$(json 'j["started"], j["metrics"]["last_ms"] - j["metrics"]["first_ms"]')" "2026-11-20T14:00:00Z 2500" \
	"ISO 8601 offsets: -0530, +02, +01:00"
sqlite3 .mtrial/journal.db "delete from runs where log like '%offsets.jsonl'"

# the real MLPerf logs with their own system's description: 1 node x 4 H100
D=$MT_SOURCE_DIR/tests/data/curves
run_mt 0 runs import --system baseline "$RD/Dell_systems_XE9640x4H100-SXM-80GB.json" \
	"$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt"
run_mt 0 runs show 3 --json
eq "$(json 'j["devices"], j["metrics"]["topology"]["system_name"], j["throughput"]["unit"]')" \
	"4.0 XE9640x4H100-SXM-80GB samples/s" "an MLLOG run with its topology; no tokens: samples"

run_mt 2 runs import "$RD/series.csv" "$RD/Intel_systems_16-nodes-SPR-pytorch.json"
has "16 node(s) x 0 accelerator(s) per node (accelerator_model_name 'N/A'): no devices" "$ERR" \
	"a CPU-only system description refused"
run_mt 2 runs import "$RD/Dell_systems_XE9640x4H100-SXM-80GB.json"
has "is a system description: give the logs" "$ERR" "a system description alone"
run_mt 2 runs import "$RD/series.csv" "$RD/Dell_systems_XE9640x4H100-SXM-80GB.json" \
	"$RD/Dell_systems_2xXE9680x8H100-SXM-80GB.json"
has "a second system description" "$ERR" "two system descriptions"
printf '{\n  "number_of_nodes": "two",\n  "accelerators_per_node": "8"\n}\n' >"$T_TMP/sys.json"
run_mt 2 runs import "$RD/series.csv" "$T_TMP/sys.json"
has "sys.json: \"number_of_nodes\" is 'two', not a whole number" "$ERR" "a bad count named"
printf '{\n  "number_of_nodes": 1,\n  "accelerators_per_node": ]\n}\n' >"$T_TMP/sys.json"
run_mt 2 runs import "$RD/series.csv" "$T_TMP/sys.json"
has "sys.json:3:" "$ERR" "a description that is not JSON: file:line:column"
# a description written on one line is still one, not a JSON Lines series
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
	"$RD/Dell_systems_XE9640x4H100-SXM-80GB.json" >"$T_TMP/compact.json"
run_mt 2 runs import "$T_TMP/compact.json"
has "is a system description: give the logs" "$ERR" "a one-line system description"
printf 'epoch,loss\n1,2.5\n' >"$T_TMP/nostep.csv"
run_mt 2 runs import "$T_TMP/nostep.csv"
has "nostep.csv:1: no step column in the header (looked for step," "$ERR" "a header without a step fails"
printf '# nothing\n' >"$T_TMP/empty.csv"
run_mt 2 runs import "$T_TMP/empty.csv"; has "empty.csv: empty: expected a header row" "$ERR" "an empty CSV"
printf 'step,"time\n1,2\n' >"$T_TMP/quote.csv"
run_mt 2 runs import "$T_TMP/quote.csv"; has "quote.csv:1: unreadable header (an unterminated quote)" "$ERR" \
	"an unreadable header fails"
run_mt 0 runs --json; eq "$(json 'len(j["runs"])')" 3 "refused imports recorded nothing"

# the compile cache: declared with --cache, inferred from the Neuron cache
# lines before the first step (a compilation, then a hit: the run started
# partly warm), a warning when they disagree
cat >"$T_TMP/neuron.sh" <<'SH'
#!/bin/sh
echo "2022-07-17 17:59:53.000541: INFO ||NCC_WRAPPER||: No candidate found under /var/tmp/neuron-compile-cache/USER_neuroncc-2.0.0.48/MODULE_8742523875190354238."
echo "Compiler status PASS"
echo "2024-09-23 00:09:00.000437:  27  INFO ||NEURON_CC_WRAPPER||: Using a cached neff at /var/tmp/neuron-compile-cache/neuronxcc-2.14.227.0/MODULE_b1/model.neff. Exiting with a successfully compiled graph."
echo "mtrial:step=1 loss=2.5 tokens=100 padded=128"
echo "mtrial:step=2 loss=2.4 tokens=100 padded=128"
SH
chmod +x "$T_TMP/neuron.sh"
run_mt 0 run --cache cold -- "$T_TMP/neuron.sh"
has "run #4: warning: declared --cache cold, but before its first step the log shows 1 compile cache hit(s) and 1 compilation(s): a partly warm cache" \
	"$ERR" "the declared cache disagrees with the log"
run_mt 0 runs show 4 --json
eq "$(json 'j["cache"], j["cache_inferred"], j["metrics"]["compile_cache"]["hits"], j["metrics"]["compile_cache"]["misses"]')" \
	"cold mixed 1 1" "declared and inferred cache side by side"
sed -i '/Using a cached neff/d' "$T_TMP/neuron.sh"
run_mt 0 run --cache cold -- "$T_TMP/neuron.sh"
hasnt "warning" "$ERR" "a cold start declared cold: no warning"
run_mt 0 runs show 5
has "cache    cold declared, cold in the log" "$OUT" "text: the cache"
# one attempt counts once: the same bytes again, under their name or
# another, are refused, naming the run they are; nothing is recorded
run_mt 0 runs --json; n_runs=$(json 'len(j["runs"])')
run_mt 2 runs import --cache warm "$RD/series.csv"
has "series.csv: this log is run #" "$ERR" "the same log again: refused, naming its run"
has "mtrial runs design" "$ERR" "the way to move it to the other comparison"
cp "$RD/series.csv" "$T_TMP/renamed.csv"
run_mt 2 runs import --system baseline "$T_TMP/renamed.csv"
has "renamed.csv: this log is run #" "$ERR" "the same bytes under another name: refused"
run_mt 0 runs show 5 --json; kept=$(json 'j["source"]')
run_mt 2 runs import --system candidate "$kept"
has "this log is run #5's" "$ERR" "the log mtrial run kept, imported: the same attempt"
run_mt 0 runs --json; eq "$(json 'len(j["runs"])')" "$n_runs" "nothing recorded by the refusals"
another_log "$RD/series.csv" "$T_TMP/series2.csv"
run_mt 0 runs import --cache warm "$T_TMP/series2.csv"
run_mt 0 runs show 6 --json
eq "$(json 'j["cache"], j["cache_inferred"], "cache_warning" in j')" "warm None False" \
	"a log without cache lines: nothing inferred, nothing to warn about"

# rehearsals: runs that test the pipeline (here the series on a CPU), listed
# and marked, never evidence: not priced, left out of the per-system figures
run_mt 0 runs --json
before=$(json 'j["systems"]["candidate"]["runs"], j["systems"]["candidate"]["failed"]')
run_mt 1 run --rehearsal --label "CPU stand-in" -- sh -c \
	'echo "mtrial:step=1 loss=2.5 tokens=100"; echo "mtrial:eval step=1 eval_loss=2.0"; exit 4'
has "run #7 (candidate, a rehearsal: not evidence)" "$ERR" "run --rehearsal: said when it starts"
another_log "$RD/series.jsonl" "$T_TMP/series2.jsonl"
run_mt 0 runs import --rehearsal --system baseline "$T_TMP/series2.jsonl"
has "as run #8 (baseline, success, a rehearsal: not evidence" "$OUT" "import --rehearsal: said"
run_mt 0 runs --json
eq "$(json '[(r["id"], r["rehearsal"]) for r in j["runs"] if r["id"] in (6, 7, 8)]')" \
	"[(6, False), (7, True), (8, True)]" "JSON: rehearsal true for the rehearsals alone"
eq "$(json 'j["systems"]["candidate"]["runs"], j["systems"]["candidate"]["failed"]')" "$before" \
	"per system: the failed rehearsal counts neither as a run nor as a failure"
eq "$(json 'j["systems"]["baseline"]["runs"]')" 2 "per system: the baseline rehearsal left out"
run_mt 0 runs show 8 --json
eq "$(json 'j["reached"], j["devices"], j["device_hours"], j["cost"], j["cost_to_target"], j["not_priced"]')" \
	"True None None None None rehearsal" "a rehearsal reaches its target, but is not priced"
run_mt 0 runs
check "text: the kind column" grep -Eq '^#7 +candidate rehearsal matched +- +failed' <<<"$OUT"
check "text: the others are evidence" grep -Eq '^#6 +candidate evidence ' <<<"$OUT"
has "2 rehearsal run(s): made to test the pipeline" "$OUT" "text: what a rehearsal is, said once"
run_mt 0 runs show 8
has "kind     rehearsal: tests the pipeline, never evidence (mtrial runs mark 8 --evidence" "$OUT" \
	"text: one rehearsal"
has "cost     not priced: rehearsal" "$OUT" "text: not priced"
run_mt 0 runs mark 8 --evidence
has "Run #8 is evidence" "$OUT" "mark --evidence"
run_mt 0 runs show 8 --json
eq "$(json 'j["rehearsal"], j["devices"], round(j["cost"], 9) == round(20 * j["device_hours"] / 4, 9)')" \
	"False 4.0 True" "marked evidence, it is priced from trial.yaml"
run_mt 0 runs mark --json 8 --rehearsal
eq "$(json 'j["id"], j["rehearsal"]')" "8 True" "mark --rehearsal, JSON"
run_mt 0 runs show 8 --json
eq "$(json 'j["rehearsal"], j["cost"]')" "True None" "marked a rehearsal again"
run_mt 2 runs mark 8; has "runs mark ID --rehearsal|--evidence" "$ERR" "mark: which one is needed"
run_mt 2 runs mark 8 --rehearsal --evidence; has "one of the two" "$ERR" "mark: not both"
run_mt 2 runs mark 99 --evidence; has "no run #99" "$ERR" "mark: an unknown run"
run_mt 2 runs mark x --evidence; has "expected a run id" "$ERR" "mark: a bad id"

run_mt 2 run; has "no command" "$ERR" "no command"
run_mt 2 run --system gpu -- true; has "expected baseline or candidate" "$ERR" "bad system"
run_mt 2 run --track fast -- true; has "expected portability or optimized" "$ERR" "bad track"
run_mt 2 run --cache hot -- true; has "expected cold or warm" "$ERR" "bad cache"
cd "$T_TMP" && run_mt 2 run -- true; has "no trial found" "$ERR" "a run needs a trial"

# --- Ctrl-C and SIGTERM: mtrial exits 128 + the signal, as a shell reports a
# job the signal stopped, even when the command catches it and exits 0 -------
RI=$T_TMP/repo-int
new_repo "$RI" && (cd "$RI" && "$MTRIAL" init >/dev/null 2>&1)
# interrupted SIG: runs a command that traps every signal and exits 0
interrupted() {
	(cd "$RI" && exec "$MTRIAL" run --label "caught-$1" -- sh -c \
		'trap "echo caught; exit 0" INT TERM; echo started; sleep 60 & wait') \
		>"$T_TMP/sig.out" 2>"$T_TMP/sig.err" &
	pid=$!
	for _ in $(seq 100); do grep -q started "$T_TMP/sig.out" && break; sleep 0.1; done
	kill -"$1" "$pid"
	wait "$pid"
	STATUS=$?
}
interrupted INT
eq "$STATUS" 130 "Ctrl-C: exit 130 though the command exited 0"
has "caught" "$(cat "$T_TMP/sig.out")" "the command got the signal"
has "aborted (exit status 0" "$(cat "$T_TMP/sig.err")" "recorded as aborted"
interrupted TERM
eq "$STATUS" 143 "SIGTERM: exit 143"
OUT=$(cd "$RI" && "$MTRIAL" runs --json)
eq "$(json '[(r["label"], r["status"]) for r in (j["runs"] if isinstance(j, dict) else j)]')" \
	"[('caught-INT', 'aborted'), ('caught-TERM', 'aborted')]" "both kept as aborted"
run_mt 0 run --help
has "130 for Ctrl-C, 143 for SIGTERM" "$OUT" "the help says so"
finish
