# The two comparison designs (issue 20): each run records its design
# (mtrial run / runs import --design matched|best, default matched), stored
# in its event and indexed; a bad value or best without precision.best is
# refused (exit 2) and records nothing; `runs design ID` re-marks a run as
# an event of its own, and `runs show` lists the change with its reason.
# decide compares runs of one design only: matched baseline runs and
# best-recipe candidate runs leave the matched comparison without a
# candidate run, never a verdict across designs.
. "$MT_SOURCE_DIR/tests/lib.sh"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name designs
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: designs
systems:
  baseline: {accelerator: A100, count: 8, hosts: 1, price: {hourly: 30, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 40, currency: USD}}
quality_target: {metric: eval_loss, threshold: 2.2, direction: lower}
precision: {weights: fp32, activations: bf16, gradients: bf16, optimizer_state: fp32, accumulation: fp32}
criteria:
  - {name: speed, kind: time_to_quality, threshold: 1.5}
YAML
log() { # log FILE.csv SECONDS_TO_TARGET LOSS: a series from its start
	{
		echo "step,time,loss,eval_loss"
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			echo "$i,$((10 + i)),2.$((30 - i)),"
		done
		echo "12,$2,,$3"
	} >"$1"
}
log "$T_TMP/b1.csv" 100 2.1
log "$T_TMP/c1.csv" 60 2.1

# --- bad input: named, exit 2, nothing recorded ---
run_mt 2 runs import --system baseline --design fast "$T_TMP/b1.csv"
has "--design fast: expected matched or best" "$ERR" "a bad design names the option and the values"
run_mt 2 runs import --system candidate --design best "$T_TMP/c1.csv"
has "precision.best" "$ERR" "best without precision.best is refused, naming it"
run_mt 2 run --design best -- true
has "precision.best" "$ERR" "run --design best is refused too"
run_mt 0 runs --json
eq "$(json 'len(j["runs"])')" 0 "nothing was recorded"

# --- the default is matched; best once precision.best is set ---
run_mt 0 runs import --system baseline "$T_TMP/b1.csv"
python3 - .mtrial/trial.yaml <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().replace("accumulation: fp32}", "accumulation: fp32, best: {candidate: {weights: bf16, activations: fp8, gradients: bf16, optimizer_state: bf16, accumulation: fp32}}}")
open(p, "w").write(s)
PY
run_mt 0 spec
run_mt 0 runs import --system candidate --design best "$T_TMP/c1.csv"
has "design best" "$OUT" "the import says the design"
run_mt 0 runs --json
eq "$(json '[r["design"] for r in j["runs"]]')" "['matched', 'best']" "JSON: each run's design"
eq "$(json 'j["systems"]["candidate"], j["systems"]["best"]["candidate"]["runs"]')" "None 1" \
	"JSON: the per-system figures per design, never pooled"
run_mt 0 runs
has "#1    baseline  evidence  matched" "$OUT" "the list shows the design"
has "#2    candidate evidence  best" "$OUT" "... of each run"
has "matched baseline: 1 run:" "$OUT" "the figures of each design, labelled"
has "best-recipe candidate: 1 run:" "$OUT" "... apart"

# --- decide never compares across designs ---
run_mt 1 decide --json
eq "$(json '[c["status"] for c in j["criteria"]]')" "['unknown']" "no verdict from another design's runs"
eq "$(json 'j["criteria"][0]["design"]')" "matched" "the criterion names its design"
has "the matched comparison lacks a candidate run" "$(json 'j["criteria"][0]["evidence"]')" \
	"decide says the matched comparison lacks a candidate"
has "#2" "$(json 'j["criteria"][0]["evidence"]')" "... and names the best-recipe run it left out"
has "--design matched" "$(json 'j["missing"][0]["command"]')" "the command records a matched run"

# --- the report: two labelled comparisons, recipes side by side ---
run_mt 0 report --format md
has "### Implementation efficiency under a matched numerical recipe (matched)" "$OUT" "report: the matched comparison"
has "### Practical performance with each platform's best supported recipe (best)" "$OUT" "report: the best one"
has "| baseline | fp32 | bf16 | bf16 | fp32 | fp32 |" "$OUT" "report: the matched recipe"
has "| candidate | bf16 | fp8 | bf16 | bf16 | fp32 |" "$OUT" "report: the candidate's best recipe"
has "| baseline | not set | not set | not set | not set | not set |" "$OUT" "report: a best recipe not set"
has "this design lacks a candidate run (\`mtrial run --system candidate --design matched\`)" "$OUT" \
	"report: the matched comparison lacks a candidate"
has "| #2 | candidate | best |" "$OUT" "report: each attempt's design"

# --- the fastest run by throughput missed the target: it never wins ---
{
	echo "step,time,loss,samples,eval_loss"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$i,$((10 + i)),2.$((30 - i)),64,"; done
	echo "12,40,,,2.5"
} >"$T_TMP/fast.csv"
run_mt 0 runs import --system candidate --design best "$T_TMP/fast.csv"
run_mt 0 report --format md
has "the candidate's fastest run by throughput, #3 (64 samples/s), missed the quality target: it has not won the time-to-quality comparison" \
	"$OUT" "report: the fastest run missed the target"
has "candidate: 2 runs, 1 reached the target, 1 finished short of it" "$OUT" "report: the best design's figures"
run_mt 0 report --format html
has "the candidate&#39;s fastest run by throughput, #3" "$OUT" "html: the same"
has "<h3>Practical performance with each platform&#39;s best supported recipe (best)</h3>" "$OUT" "html: labelled"

# the break-even reads one design too
run_mt 2 breakeven
has "the candidate has no run of the matched design" "$ERR" "break-even: the matched design's sides"
run_mt 2 breakeven --design best
has "the baseline has no run of the best design" "$ERR" "break-even: the best design's sides"
run_mt 2 breakeven --design fast
has "--design fast: expected matched or best" "$ERR" "break-even: a bad design"

# --- re-marking: an event, the change listed ---
run_mt 2 runs design 2 matched
has "--why" "$ERR" "a re-mark needs its reason"
run_mt 2 runs design 2 fastest --why x
has "expected matched or best" "$ERR" "a bad design is refused"
run_mt 2 runs design 9 matched --why x
has "no run #9" "$ERR" "an unknown run is named"
run_mt 0 runs design 2 matched --why "the recipe was the matched one after all"
run_mt 0 runs show 2
has "design   matched" "$OUT" "show: the design now"
has "best -> matched, why: the recipe was the matched one after all" "$OUT" "show lists the change"
run_mt 0 runs show 2 --json
eq "$(json '[(c["from"], c["to"]) for c in j["design_changes"]]')" "[('best', 'matched')]" \
	"JSON: the change"
# the change is in the record: the index rebuilt from the events keeps it
rm -f .mtrial/journal.db
run_mt 0 runs show 2 --json
eq "$(json 'j["design"], len(j["design_changes"])')" "matched 1" "rebuilt from the events"
run_mt 0 decide --json
eq "$(json 'j["criteria"][0]["status"]')" "met" "now both matched: compared (60 s vs 100 s)"
run_mt 0 breakeven --json
eq "$(json 'j["topologies"][0]["runs"], j["design"]')" "{'baseline': [1], 'candidate': [2]} matched" \
	"break-even: both runs now matched"
finish
