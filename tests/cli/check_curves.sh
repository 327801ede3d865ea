# mtrial check curves: two real MLPerf runs and made-up CSV/JSONL curves,
# each verdict checked against values Python computes from the same files;
# bad input, exit codes, and the record in a trial.
. "$MT_SOURCE_DIR/tests/lib.sh"
PY=${PYTHON:-python3}
D=$MT_SOURCE_DIR/tests/data/curves
R0=$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt
R2=$D/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt

# expect REF REFSPEC CAND CANDSPEC RTOL ATOL WINDOW [TARGET DIRECTION]:
# recomputes the comparison from the files and checks every number in $OUT
# against it. SPEC: mllog:STEPFIELD:KEY[.FIELD], csv:STEP:VALUE or
# jsonl:STEP:VALUE.
EXPECT_PY=$(cat <<'EOF'
import csv, json, math, sys
ref_path, ref_spec, cand_path, cand_spec, rtol, atol, window = sys.argv[1:8]
rtol, atol, window = float(rtol), float(atol), int(window)
target = float(sys.argv[8]) if len(sys.argv) > 8 else None
higher = len(sys.argv) > 9 and sys.argv[9] == "higher"

def load(path, spec):
    fmt, step_key, value_key = spec.split(":")
    pts = {}
    if fmt == "mllog":
        key, _, field = value_key.partition(".")
        for line in open(path):
            if ":::MLLOG" not in line:
                continue
            ev = json.loads(line.split(":::MLLOG", 1)[1])
            if ev["key"] == key:
                v = ev["value"][field] if field else ev["value"]
                pts[ev["metadata"][step_key]] = v
    elif fmt == "csv":
        text = open(path).read()
        rows = csv.DictReader(text.splitlines(), delimiter="\t" if "\t" in text.splitlines()[0] else ",")
        for r in rows:
            if r[value_key] != "":
                pts[float(r[step_key])] = float(r[value_key])
    else:
        for line in open(path):
            o = json.loads(line)
            if value_key in o:
                pts[o[step_key]] = float(o[value_key]) if o[value_key] is not None else math.nan
    return dict(sorted(pts.items()))

def smooth(v):
    out = []
    for i in range(len(v)):
        w = v[max(0, i - window + 1):i + 1]
        out.append(sum(w) / len(w))
    return out

ref, cand = load(ref_path, ref_spec), load(cand_path, cand_spec)
steps = [s for s in ref if s in cand]
a, b = smooth([ref[s] for s in steps]), smooth([cand[s] for s in steps])
inside = [math.isfinite(x) and math.isfinite(y) and abs(y - x) <= atol + rtol * abs(x) for x, y in zip(a, b)]
fin = [(s, abs(y - x), x) for s, x, y in zip(steps, a, b) if math.isfinite(x) and math.isfinite(y)]
diverged = None
for s, ok in zip(steps, inside):
    diverged = None if ok else (diverged if diverged is not None else s)
mabs = max(fin, key=lambda t: t[1])
mrel = max([(s, g / abs(x)) for s, g, x in fin if x != 0], key=lambda t: t[1])
j = json.load(sys.stdin)
want = {
    "points": len(steps),
    "only_in_reference": len(ref) - len(steps),
    "only_in_candidate": len(cand) - len(steps),
    "outside_band": inside.count(False),
    "passed": all(inside),
    "first_divergent_step": next((s for s, ok in zip(steps, inside) if not ok), None),
    "diverged_from_step": diverged,
    "max_abs_gap": {"step": mabs[0], "value": mabs[1]},
    "max_rel_gap": {"step": mrel[0], "value": mrel[1]},
    "mean_abs_gap": sum(g for _, g, _ in fin) / len(fin),
    "final": {"step": steps[-1], "reference": a[-1], "candidate": b[-1] if math.isfinite(b[-1]) else None,
              "agree": inside[-1]},
}
if target is not None:
    def reach(c):
        v = smooth(list(c.values()))
        return next((s for s, x in zip(c, v) if (x >= target if higher else x <= target)), None)
    want["target"] = {"reference_step": reach(ref), "candidate_step": reach(cand)}

def same(w, g, path):
    if isinstance(w, dict):
        return all(same(w[k], g.get(k), path + "." + k) for k in w)
    if isinstance(w, float) and g is not None and abs(w - g) <= 1e-9 * max(1, abs(w)):
        return True
    if w == g:
        return True
    print(f"{path}: expected {w!r}, got {g!r}")
    return False
sys.exit(0 if same(want, j, "") else 1)
EOF
)
expect() { printf '%s' "$OUT" | "$PY" -c "$EXPECT_PY" "$@"; }
mt_expect() { check "$1" expect "${@:2}"; }

# two runs of the same MLPerf benchmark: eval_accuracy by epoch; run 2 aborted
run_mt 1 check curves "$R0" "$R2" --json --target 0.759
mt_expect "MLPerf runs, default band" "$R0" mllog:epoch_num:eval_accuracy "$R2" mllog:epoch_num:eval_accuracy 0.05 0 1 0.759 higher
eq "$(json 'j["files"]["candidate"]["status"], j["files"]["reference"]["step"]')" "aborted epoch_num" "run status and step field"
eq "$(json 'j["target"]["direction"], j["target"]["ratio"]')" "higher None" "accuracy is higher-is-better"
eq "$(json 'j["reference"] == "'"$R0"'" and j["series"]["points"] == 9')" True "names and the series"
run_mt 0 check curves "$R0" "$R2" --json --rtol 0.15
mt_expect "MLPerf runs, rtol 0.15" "$R0" mllog:epoch_num:eval_accuracy "$R2" mllog:epoch_num:eval_accuracy 0.15 0 1
run_mt 0 check curves "$R0" "$R2" --final-only --json
eq "$(json 'j["passed"], j["final"]["agree"], j["final_only"]')" "True True True" "--final-only"
run_mt 1 check curves "$R0" "$R2" --window 3 --json
mt_expect "MLPerf runs, window 3" "$R0" mllog:epoch_num:eval_accuracy "$R2" mllog:epoch_num:eval_accuracy 0.05 0 3
run_mt 0 check curves "$R0" "$R2" --key tracked_stats.throughput --step-col step --json --rtol 0.1
mt_expect "a member of an object value" "$R0" mllog:step:tracked_stats.throughput "$R2" mllog:step:tracked_stats.throughput 0.1 0 1
run_mt 1 check curves "$R0" "$R2" --target 0.759
has "Outside the band: " "$OUT" "text summary"
has "run aborted" "$OUT" "aborted run said"
has "reference at step 35, candidate never" "$OUT" "time to quality"
has "* reference  o candidate  # both" "$OUT" "the overlay"
has "FAIL: " "$OUT" "verdict"
has "not recorded: no trial" "$OUT" "works without a trial"

# made-up curves: comma CSV against tab CSV and JSON Lines
run_mt 1 check curves "$D/ref.csv" "$D/cand.tsv" --json
mt_expect "CSV vs TSV" "$D/ref.csv" csv:step:loss "$D/cand.tsv" csv:iteration:train_loss 0.05 0 1
eq "$(json 'j["first_divergent_step"], j["diverged_from_step"]')" "20 None" "a spike, not a divergence"
run_mt 0 check curves "$D/ref.csv" "$D/cand.tsv" --window 5 --json
mt_expect "smoothed, the spike is inside" "$D/ref.csv" csv:step:loss "$D/cand.tsv" csv:iteration:train_loss 0.05 0 5
run_mt 0 check curves "$D/ref.csv" "$D/cand.jsonl" --window 5 --json --target 2 --lower-is-better
mt_expect "CSV vs JSONL" "$D/ref.csv" csv:step:loss "$D/cand.jsonl" jsonl:global_step:loss 0.05 0 5 2 lower
eq "$(json 'j["files"]["candidate"]["step"], j["only_in_candidate"]')" "global_step 10" "steps only in the candidate"
run_mt 1 check curves "$D/ref.csv" "$D/diverged.jsonl" --json
mt_expect "a diverged run" "$D/ref.csv" csv:step:loss "$D/diverged.jsonl" jsonl:step:loss 0.05 0 1
eq "$(json 'j["diverged_from_step"], j["nonfinite_points"], j["final"]["candidate"]')" "30 10 None" "NaN kept and reported"
run_mt 0 check curves "$D/ref.csv" "$D/cand.jsonl" --align index --window 5 --json
eq "$(json 'j["align"], j["points"], j["only_in_candidate"]')" "index 50 10" "--align index"
run_mt 2 check curves "$D/ref.csv" "$D/cand.tsv" --step-col iteration --value-col train_loss --format csv
has "no step column 'iteration'" "$ERR" "named columns apply to both files" # ref.csv has none
run_mt 0 check curves "$D/cand.tsv" "$D/cand.tsv" --step-col iteration --value-col train_loss --json
eq "$(json 'j["max_abs_gap"]["value"], j["passed"]')" "0 True" "a curve against itself"

# the series for the TUI is capped by even downsampling
seq 0 4999 | awk 'BEGIN{print "step,loss"} {print $1 "," 1 + 1 / ($1 + 1)}' >"$T_TMP/long.csv"
run_mt 0 check curves "$T_TMP/long.csv" "$T_TMP/long.csv" --json
eq "$(json 'j["series"]["points"], j["series"]["downsampled"], j["series"]["steps"][0], j["series"]["steps"][-1]')" "2000 True 0 4999" "series capped at 2000 points"

# bad input: exit 2, the file and line named
B=$T_TMP/bad && mkdir "$B"
printf 'step,loss\n1,2\n2,1.5\n3,abc\n' >"$B/value.csv"
printf '{"step": 1, "loss": 2}\n{"step": 2, "loss": 1}\n{"step": 3, "loss": \n' >"$B/line.jsonl"
printf 'step,loss\n1,2\n2,1\n1,3\n' >"$B/dup.csv"
printf 'time,loss\n1,2\n' >"$B/nocol.csv"
printf 'step,loss\n' >"$B/empty.csv"
printf 'step,loss\n100,1\n' >"$B/far.csv"
printf ':::MLLOG {"key": "eval_accuracy", "value": 0.5, "metadata": {"epoch_num": 1}}\n:::MLLOG {"key": oops}\n' >"$B/bad.log"
run_mt 2 check curves "$D/ref.csv" "$B/value.csv"; has "$B/value.csv:4: loss 'abc' is not a number" "$ERR" "non-numeric value"
run_mt 2 check curves "$D/ref.csv" "$B/line.jsonl"; has "$B/line.jsonl:3: column" "$ERR" "malformed JSON line"
run_mt 2 check curves "$D/ref.csv" "$B/dup.csv"; has "$B/dup.csv:4: step 1 again" "$ERR" "duplicate step"
run_mt 2 check curves "$B/nocol.csv" "$D/ref.csv"; has "$B/nocol.csv:1: no step column" "$ERR" "missing column"
run_mt 2 check curves "$D/ref.csv" "$B/empty.csv"; has "the series is empty" "$ERR" "empty series"
run_mt 2 check curves "$D/ref.csv" "$B/far.csv"; has "no step is common" "$ERR" "nothing to compare"
run_mt 2 check curves "$R0" "$B/bad.log"; has "$B/bad.log:2: column" "$ERR" "malformed MLLOG line"
run_mt 2 check curves "$D/ref.csv" "$B/missing.csv"; has "missing.csv" "$ERR" "missing file"
run_mt 2 check curves "$D/ref.csv" "$B/value.csv" --json
eq "$(json '"is not a number" in j["error"]')" True "error as JSON"
run_mt 2 check curves "$D/ref.csv"; has "two files" "$ERR" "one file"
run_mt 2 check curves a b --rtol abc; has "--rtol" "$ERR" "bad --rtol"
run_mt 2 check curves a b --window 0; has "--window" "$ERR" "bad --window"
run_mt 2 check curves a b --align diagonal; has "--align" "$ERR" "bad --align"
run_mt 2 check curves a b --higher-is-better; has "--target" "$ERR" "direction without a target"
run_mt 0 check curves --help; has "--final-only" "$OUT" "help"
has "--rehearsal records the check as a rehearsal" "$OUT" "help says --rehearsal"
run_mt 0 check --help
has "check mark ID --rehearsal|--evidence" "$OUT" "check's help names mark"
has "[--target V] [--final-only] [--rehearsal]" "$OUT" "and curves --rehearsal"

# the record in a trial
W=$T_TMP/work
new_repo "$W"
(cd "$W" && "$MTRIAL" init >/dev/null 2>&1) || bad "init"
cp "$D/ref.csv" "$D/cand.tsv" "$W/"
cd "$W"
run_mt 1 check curves ref.csv cand.tsv
has "Recorded as check #1" "$OUT" "recorded"
run_mt 0 check curves ref.csv cand.tsv --window 5 --json
eq "$(json 'j["check_id"]')" 2 "check id in JSON"
eq "$(sqlite3 .mtrial/journal.db "select count(*) from checks where kind='curves'")" 2 "two curves checks in the journal"
eq "$(sqlite3 .mtrial/journal.db "select passed, reference, candidate from checks where kind='curves' order by id")" "0|ref.csv|cand.tsv
1|ref.csv|cand.tsv" "verdicts and names recorded"
run_mt 0 check list
has "curves   FAIL   ref.csv vs cand.tsv" "$OUT" "check list shows it"
hasnt "rehearsal" "$OUT" "no rehearsal said without one"

# a rehearsal: recorded so, listed so, marked both ways
run_mt 0 check curves ref.csv ref.csv --rehearsal
has "Recorded as check #3 (a rehearsal: not evidence)" "$OUT" "recorded as a rehearsal"
eq "$(sqlite3 .mtrial/journal.db "select rehearsal from checks order by id")" "0
0
1" "the journal's rehearsal column"
run_mt 0 check curves ref.csv ref.csv --rehearsal --json
eq "$(json 'j["rehearsal"], j["check_id"]')" "True 4" "the result says rehearsal"
run_mt 0 check list
has "#3    " "$OUT" "listed"
has "curves   pass   ref.csv vs ref.csv  (rehearsal: not evidence)" "$OUT" "listed as a rehearsal"
has "2 rehearsal check(s)" "$OUT" "the list counts the rehearsals"
has "mtrial check mark ID --evidence" "$OUT" "and says how to count one"
run_mt 0 check mark 3 --evidence
has "Check #3 is evidence" "$OUT" "marked evidence"
run_mt 0 check list --json
eq "$(json '[(c["id"], c["rehearsal"]) for c in j]')" \
	"[(4, True), (3, False), (2, False), (1, False)]" "check list JSON says rehearsal"
run_mt 0 check mark 3 --rehearsal --json
eq "$(json 'j["id"], j["rehearsal"]')" "3 True" "marked a rehearsal again (JSON)"
eq "$(sqlite3 .mtrial/journal.db "select count(*) from checks where rehearsal = 1")" 2 \
	"two rehearsals in the journal"
run_mt 2 check mark 3; has "--rehearsal|--evidence" "$ERR" "mark without a kind"
run_mt 2 check mark 3 --rehearsal --evidence; has "one of the two" "$ERR" "mark with both"
run_mt 2 check mark x --evidence; has "expected a check id" "$ERR" "mark a bad id"
run_mt 2 check mark 99 --evidence
has "no check #99" "$ERR" "mark a check that does not exist"
cd /

# --- runs: mtrial's own logs and run ids, read by the runs' rules ------------
RR=$T_TMP/runs-repo
new_repo "$RR"
cd "$RR" && "$MTRIAL" init >/dev/null 2>&1
# steps with loss, and one eval; run 2 drifts out of the band from step 4
"$MTRIAL" run --label a -- sh -c 'for i in 1 2 3 4 5; do echo "noise $i"; echo "mtrial:step=$i loss=$((10 - i)).0 tokens=8"; done; echo "mtrial:eval step=5 eval_loss=4.5"' >/dev/null 2>&1
"$MTRIAL" run --label b -- sh -c 'for i in 1 2 3; do echo "mtrial:step=$i loss=$((10 - i)).2"; done; echo "mtrial:step=4 loss=7" >&2; echo "mtrial:step=5 loss=7.5"' >/dev/null 2>&1
LOG1=$(sqlite3 .mtrial/journal.db "select log from runs where id = 1")
run_mt 1 check curves run:1 run:2 --json
eq "$(json 'j["files"]["reference"]["format"], j["files"]["reference"]["value"], j["files"]["reference"]["step"], j["files"]["reference"]["points"]')" \
	"run log loss step 5" "run:1: the step lines' loss by step"
eq "$(json 'j["first_divergent_step"], j["diverged_from_step"], j["outside_band"]')" "4 4 2" \
	"the stderr step line counts too: outside from step 4"
eq "$(json 'j["reference"]')" "run #1 (candidate, a): $LOG1" "the run named in the result"
eq "$(sqlite3 .mtrial/journal.db "select kind, passed from checks order by id desc limit 1")" "curves|0" "recorded"
eq "$(json 'j["files"]["reference"]["system"], j["files"]["candidate"]["system"]')" "candidate candidate" \
	"each side's system, a run's"
# two runs of one system: listed by decide, not counted (their spread, not the two systems)
sed -i 's/^criteria:$/criteria:\n  - {name: same, kind: correctness}/' .mtrial/trial.yaml
run_mt 1 decide --json
eq "$(json '[c["status"] for c in j["criteria"] if c["name"] == "same"]')" "['unknown']" \
	"a candidate-vs-candidate check does not settle correctness"
has "check of a system against itself not counted (#" "$(json '[c["evidence"] for c in j["criteria"] if c["name"] == "same"][0]')" \
	"decide says why it is not counted"
sed -i '/name: same, kind: correctness/d' .mtrial/trial.yaml
run_mt 1 check curves 1 2
has "reference run #1 (candidate, a): $LOG1: 5 points" "$OUT" "a bare id when no file has that name"
run_mt 0 check curves "$LOG1" run:1 --rtol 0 --json
eq "$(json 'j["passed"], j["points"], j["files"]["reference"]["format"]')" "True 5 run log" "a run's log file by path"
run_mt 0 check curves run:1 run:1 --key eval_loss --json
eq "$(json 'j["files"]["reference"]["value"], j["points"]')" "eval_loss 1" "--key reads an mtrial:eval field"
# an MLPerf log run under mtrial run: the same points as the file itself
"$MTRIAL" run --label mlperf -- cat "$R0" >/dev/null 2>&1
run_mt 0 check curves "$R0" run:3 --rtol 0 --json
eq "$(json 'j["points"], j["outside_band"], j["files"]["candidate"]["value"], j["files"]["candidate"]["step"], j["files"]["candidate"]["status"]')" \
	"9 0 eval_accuracy epoch_num success" "MLLOG lines inside a run log: eval_accuracy by epoch, as in the file"
# a log of protocol lines without times, and an imported CSV run
printf 'start\nmtrial:step=1 loss=9\nmtrial:step=2 loss=8\n' >"$T_TMP/plain.log"
run_mt 0 check curves "$T_TMP/plain.log" run:1 --json
eq "$(json 'j["files"]["reference"]["format"], j["points"], j["only_in_candidate"]')" "log 2 3" "protocol lines in a plain log"
printf 'step,loss\n1,9\n2,8\n3,7\n' >"$T_TMP/series.csv"
"$MTRIAL" runs import "$T_TMP/series.csv" >/dev/null 2>&1
run_mt 0 check curves run:4 run:1 --json
eq "$(json 'j["points"], j["reference"].startswith("run #4")')" "3 True" "an imported CSV run by id"
# a file named like an id is a file
cp "$T_TMP/series.csv" 5 && run_mt 0 check curves 5 run:4 --rtol 0
rm -f 5
run_mt 2 check curves run:99 run:1; has "no run #99 in this trial" "$ERR" "an unknown run"
run_mt 2 check curves run:x run:1; has "expected run:N" "$ERR" "a malformed run id"
run_mt 2 check curves run:1 run:2 --key nope; has "run #1: " "$ERR" "the run named in a read error"
has "no 'nope' values" "$ERR" "what is missing"
cd "$T_TMP" && run_mt 2 check curves run:1 run:2; has "no trial found" "$ERR" "a run id needs a trial"
run_mt 0 check curves --help; has "run:N (or N alone when no file has that name)" "$OUT" "--help names run ids"
cd /

finish
