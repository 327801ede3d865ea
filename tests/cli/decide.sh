# mtrial decide: one trial taken from no evidence to a verdict through the
# real commands (runs import of generated logs, check curves, effort add,
# scan and probe against a table of the test's own, override): incomplete ->
# NOT_ENOUGH_EVIDENCE, complete -> GO, a workaround -> GO_WITH_CONDITIONS,
# a failed check -> NO_GO; rehearsal runs alone -> unknown, never NO_GO;
# exit codes, JSON fields, the checklist text, and bad trial.yaml criteria
# named by line.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
cat >"$R/train.py" <<'PY'
import torch
x = torch.add(torch.ones(3), 1)
PY
git -C "$R" add -A && git -C "$R" commit -qm init
cd "$R"
run_mt 0 init --name decide-test

# gen_log FILE STEP_MS EVAL10 EVAL20: 20 steps in the line protocol with
# their own times, evaluations of eval_loss after steps 10 and 20.
gen_log() {
	python3 - "$@" <<'PY'
import sys
path, dt, e10, e20 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
t0 = 1_700_000_000_000
with open(path, "w") as f:
    for s in range(1, 21):
        f.write(f"mtrial:step={s} loss=3.0 tokens=1000 time_ms={t0 + s * dt}\n")
        if s in (10, 20):
            f.write(f"mtrial:eval step={s} eval_loss={e10 if s == 10 else e20} time_ms={t0 + s * dt}\n")
PY
}

cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: decide-test
systems:
  baseline: {accelerator: A100, count: 8, hosts: 1, price: {hourly: 32, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 40, currency: USD}}
quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}
tracks:
  optimized: {budget_hours: 40}
criteria:
  - name: quality-target
    kind: quality
    threshold: 2.1
  - {name: curves-match, kind: correctness}
  - {name: no-cpu-fallback, kind: ops, threshold: 0}
  - {name: time-to-quality, kind: time_to_quality, threshold: 1.0}
  - {name: cost-to-quality, kind: cost_to_quality, threshold: 1.2}
  - {name: porting-effort, kind: effort, threshold: 40}
YAML

# --- incomplete: only the baseline has run ------------------------------------
gen_log "$T_TMP/base.log" 60000 2.30 2.05
run_mt 0 runs import --system baseline "$T_TMP/base.log"
run_mt 1 decide --json
eq "$(json 'j["verdict"]')" NOT_ENOUGH_EVIDENCE "incomplete: not enough evidence"
eq "$(json '[c["status"] for c in j["criteria"]]')" \
	"['unknown', 'unknown', 'unknown', 'unknown', 'unknown', 'unknown']" "nothing is met from missing data"
eq "$(json '[c["value"] for c in j["criteria"]]')" "[None, None, None, None, None, None]" "no value without data"
eq "$(json 'sorted({m["criterion"] for m in j["missing"]})')" \
	"['cost-to-quality', 'curves-match', 'no-cpu-fallback', 'porting-effort', 'quality-target', 'time-to-quality']" \
	"every criterion says what is missing"
eq "$(json 'all(m["command"].startswith("mtrial ") for m in j["missing"])')" True "each with the command that records it"
eq "$(json '[m["command"] for m in j["missing"] if m["criterion"] == "no-cpu-fallback"][0]')" \
	"mtrial scan, then mtrial probe" "the probe's command"
eq "$(json 'j["counts"]')" "{'met': 0, 'not_met': 0, 'unknown': 6}" "counts"
has "6 of 6 criteria cannot be judged yet" "$(json 'j["caveat"]')" "the main caveat says so"
run_mt 1 decide
eq "$(printf '%s\n' "$OUT" | head -1)" "Verdict: NOT ENOUGH EVIDENCE (0 of 6 criteria met, 0 not met, 6 unknown)" \
	"text: the verdict first"
has "[?] quality-target (quality): unknown" "$OUT" "text: a checklist"
has "missing: a probe of the op inventory; record it with: mtrial scan, then mtrial probe" "$OUT" \
	"text: what is missing and how to record it"

# --- complete: every criterion met --------------------------------------------
gen_log "$T_TMP/cand.log" 50000 2.25 2.04
run_mt 0 runs import --system candidate --track portability "$T_TMP/cand.log"
printf 'step,loss\n1,3.0\n2,2.8\n3,2.6\n' >"$T_TMP/ref.csv"
printf 'step,loss\n1,3.0\n2,2.8\n3,2.6001\n' >"$T_TMP/ok.csv"
run_mt 0 check curves "$T_TMP/ref.csv" "$T_TMP/ok.csv"
run_mt 0 effort add --duration 6h --track portability --category setup "device strings"
run_mt 0 effort add --duration 4h --track optimized --category optimization buckets
cat >"$T_TMP/mine.yaml" <<'YAML'
schema: mtrial-compat/1
name: mine
backend: test
version: "1"
kind: documented
source: {url: "https://example.com/mine"}
retrieved: 2026-11-01
ops:
  aten::add:
    status: device
  aten::ones:
    status: device
YAML
run_mt 0 scan
printf 'probe:\n  table: %s\n' "$T_TMP/mine.yaml" >>.mtrial/trial.yaml
run_mt 0 probe --table "$T_TMP/mine.yaml"
run_mt 0 decide --json
eq "$(json 'j["verdict"]')" GO "complete: GO"
eq "$(json '[c["status"] for c in j["criteria"]]')" "['met', 'met', 'met', 'met', 'met', 'met']" "all met"
eq "$(json '(j["failed"], j["missing"], j["conditions"])')" "([], [], [])" "nothing failed, missing or conditional"
# candidate 20 x 50 s from its first step: 950 s; the baseline 20 x 60 s: 1140 s
eq "$(json 'round(j["criteria"][3]["value"], 6)')" "$(python3 -c 'print(round(950/1140, 6))')" "time ratio"
eq "$(json 'round(j["criteria"][4]["value"], 6)')" "$(python3 -c 'print(round(40*950/(32*1140), 6))')" "cost ratio"
has "device-hours to the target 4.22 vs 2.53 (1.67x, from the attempt's start)" "$(json 'j["criteria"][3]["evidence"]')" \
	"device-hours kept apart from turnaround"
eq "$(json 'j["criteria"][3]["source"]')" "runs #2 (candidate) and #1 (baseline): time_to_target_s" "time source"
eq "$(json 'j["criteria"][0]["track"], j["criteria"][0]["value"]')" "portability 2.04" "quality per track"
eq "$(json 'j["criteria"][5]["value"]')" 10.0 "effort hours"
has "probe #1 (table mine 1" "$(json 'j["criteria"][2]["source"]')" "ops source names the probe and table"
# imported logs carry no submission time: compilation is not counted, and said so
has "the time from submission (compilation and start-up) is not known" "$(json 'j["caveat"]')" \
	"GO still names its main caveat"
has "1 candidate and 1 baseline run(s)" "$(json '" | ".join(j["caveats"])')" "too few runs for a spread"
run_mt 0 decide
has "Verdict: GO (6 of 6 criteria met" "$OUT" "text: GO"
has "[x] time-to-quality (time_to_quality): met" "$OUT" "text: a met criterion"
# an exploratory probe against another table (an inference table) is
# recorded later: the decision still judges ops against trial.yaml's table
run_mt 0 probe --table torch-neuron-inf1
run_mt 0 decide --json
eq "$(json 'j["verdict"]')" GO "a later probe against another table does not decide"
has "probe #1 (table mine 1" "$(json 'j["criteria"][2]["source"]')" "... the trial's table's probe is read"
has "probe #2 (table torch-neuron-inf1) left out: not the trial's table" \
	"$(json 'j["criteria"][2]["source"]')" "... the other one is named as left out"
has "judged against table mine (trial.yaml probe.table)" "$(json 'j["criteria"][2]["evidence"]')" \
	"... and the evidence says which table"

# --- conditions: an op the table refuses, made to work by the team -------------
python3 - "$T_TMP/mine.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().replace("aten::add:\n    status: device", "aten::add:\n    status: unsupported")
open(p, "w").write(s)
PY
run_mt 1 probe --table "$T_TMP/mine.yaml"
run_mt 1 decide --json
eq "$(json 'j["verdict"]')" NO_GO "an unsupported op without a workaround: NO_GO"
eq "$(json 'j["failed"][0]["criterion"]')" no-cpu-fallback "what failed"
has "aten::add" "$(json 'j["failed"][0]["evidence"]')" "the op named"
run_mt 0 override aten::add device --note "runs on the device with 2.14.3 (t, 2026-11-20)"
run_mt 0 probe --table "$T_TMP/mine.yaml"
run_mt 1 decide --json
eq "$(json 'j["verdict"]')" GO_WITH_CONDITIONS "a workaround: GO_WITH_CONDITIONS"
eq "$(json '[c["criterion"] for c in j["conditions"]]')" "['no-cpu-fallback']" "the condition's criterion"
has "aten::add (device: override:journal#1)" "$(json 'j["conditions"][0]["text"]')" "the override named"
has "a go only if this holds (no-cpu-fallback)" "$(json 'j["caveat"]')" "the condition is the main caveat"
run_mt 1 decide
has "Verdict: GO WITH CONDITIONS" "$OUT" "text: conditions"
has "    condition: 1 op(s) rest on the team's overrides" "$OUT" "text: the condition"

# --- failing: the latest comparison of the curves fails -------------------------
printf 'step,loss\n1,3.0\n2,3.5\n3,4.0\n' >"$T_TMP/bad.csv"
run_mt 1 check curves "$T_TMP/ref.csv" "$T_TMP/bad.csv"
run_mt 1 decide --json
eq "$(json 'j["verdict"]')" NO_GO "a failed check: NO_GO"
eq "$(json '[(c["name"], c["status"]) for c in j["criteria"] if c["status"] != "met"]')" \
	"[('curves-match', 'not_met')]" "only correctness is not met"
has "1 of 2 comparisons of the two systems failed" "$(json 'j["failed"][0]["evidence"]')" "the evidence counts checks"
has "curves-match is not met" "$(json 'j["caveat"]')" "NO_GO's caveat names the failure"
# a slower candidate run on the optimized track does not change the port's figure
gen_log "$T_TMP/slow.log" 90000 2.5 2.3
run_mt 0 runs import --system candidate --track optimized "$T_TMP/slow.log"
run_mt 1 decide --json
eq "$(json 'j["criteria"][3]["track"], j["criteria"][3]["status"]')" "portability met" "the portability track decides"

# --- runs made by mtrial run: both clocks known, a failed attempt ---------------------
R2=$T_TMP/repo2
mkdir -p "$R2" && cp "$R/train.py" "$R2/" && git -C "$R2" -c init.defaultBranch=main init -q &&
	git -C "$R2" add -A && git -C "$R2" commit -qm init
cd "$R2"
run_mt 0 init --name runs
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: runs
systems:
  baseline: {accelerator: A100, count: 8}
  candidate: {accelerator: Trainium2, count: 16}
quality_target: {metric: eval_loss, threshold: 2.2, direction: lower}
criteria:
  - {name: quality, kind: quality}
  - {name: turnaround, kind: time_to_quality, threshold: 100}
YAML
LOOP=$MT_SOURCE_DIR/tests/data/runs/loop.sh
run_mt 0 run --system baseline -- "$LOOP"
run_mt 0 run --system candidate --track portability -- "$LOOP"
run_mt 1 run --system candidate --track portability -- sh -c 'exit 3'
run_mt 1 decide --json
eq "$(json 'j["verdict"]')" GO_WITH_CONDITIONS "a failed attempt: GO_WITH_CONDITIONS"
eq "$(json '[c["status"] for c in j["criteria"]]')" "['met', 'met']" "both met"
eq "$(json 'j["conditions"][0]["text"].split(":")[0]')" \
	"1 of 2 candidate attempts failed, were aborted or lost (runs #3)" "the failed attempt named"
eq "$(json 'len(j["conditions"])')" 1 "told once, not per criterion"
eq "$(json 'j["criteria"][0]["value"], j["criteria"][0]["threshold"]')" "1.9 2.2" \
	"the target of quality_target when the criterion has no threshold"
eq "$(json 'all(isinstance(j["criteria"][1]["figures"][s]["from_submission_s"], float) for s in ("baseline", "candidate"))')" \
	True "runs of mtrial run know the time from submission"
hasnt "compilation and start-up) is not known" "$(json '" | ".join(j["caveats"])')" "no caveat about it then"
has "; device-hours to the target " "$(json 'j["criteria"][1]["evidence"]')" "device-hours shown apart"
has "; from submission, compilation included, " "$(json 'j["criteria"][1]["evidence"]')" "so is the clock from submission"

# --- rehearsals only: runs that test the pipeline are never evidence -------------------
R3=$T_TMP/repo3
mkdir -p "$R3" && cp "$R/train.py" "$R3/" && git -C "$R3" -c init.defaultBranch=main init -q &&
	git -C "$R3" add -A && git -C "$R3" commit -qm init
cd "$R3"
run_mt 0 init --name rehearsals
cp "$R2/.mtrial/trial.yaml" .mtrial/trial.yaml
run_mt 0 run --rehearsal --system baseline -- "$LOOP"
# a CPU stand-in of the candidate: finished, evaluated, short of the target
run_mt 0 run --rehearsal --system candidate --track portability -- sh -c \
	'echo "mtrial:step=1 loss=3.0"; echo "mtrial:eval step=1 eval_loss=2.9"'
run_mt 1 run --rehearsal --system candidate --track portability -- sh -c 'exit 3'
run_mt 1 decide --json
eq "$(json 'j["verdict"]')" NOT_ENOUGH_EVIDENCE "rehearsals only: not enough evidence, never NO_GO"
eq "$(json '[c["status"] for c in j["criteria"]]')" "['unknown', 'unknown']" "the run criteria are unknown"
eq "$(json 'j["conditions"]')" "[]" "the failed rehearsal is no condition"
eq "$(json '[m["what"] for m in j["missing"] if m["criterion"] == "quality"]')" \
	"['a finished candidate run that evaluates the quality metric: a real run, not a rehearsal (2 candidate rehearsal run(s) left out: they test the pipeline and are not evidence)']" \
	"missing: a real run, and how many rehearsals were left out"
has "a baseline run that reaches the quality target: a real run, not a rehearsal (1 baseline" \
	"$(json '" | ".join(m["what"] for m in j["missing"])')" "the baseline's rehearsal counted apart"
has "rehearsal runs #1, #2, #3 left out: not evidence" "$(json 'j["criteria"][1]["evidence"]')" \
	"the evidence names the rehearsals left out"
# marked evidence, the same run is judged: it missed the target
run_mt 0 runs mark 2 --evidence
run_mt 1 decide --json
eq "$(json 'j["verdict"], j["criteria"][0]["status"]')" "NO_GO not_met" "marked evidence, the miss counts"
cd "$R"

# --- bad input ---------------------------------------------------------------------
run_mt 2 decide extra; has "decide" "$ERR" "an argument is a usage error"
cp .mtrial/trial.yaml "$T_TMP/good.yaml"
sed -i 's/kind: quality$/kind: qualty/' .mtrial/trial.yaml
run_mt 2 decide --json
has "trial.yaml:11:11: 'criteria.0.kind' must be one of" "$ERR" "an unknown kind named by line and column"
eq "$(json '"error" in j and j["exit"]')" 2 "JSON error"
cp "$T_TMP/good.yaml" .mtrial/trial.yaml
cd "$T_TMP"
run_mt 2 decide; has "trial" "$ERR" "no trial here"

finish
