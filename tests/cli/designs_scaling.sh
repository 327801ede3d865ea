# The two comparison designs (issue 20) in scaling, buckets and the
# report's compile time: each reads the runs of one design (--design
# matched, the default, or best) and never pools them; the other design's
# runs are named as left out, never dropped without a word. Two candidate
# runs at 8 devices: #1 matched, 120 s a compilation; #2 best-recipe, 40 s.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name designs
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: designs
systems:
  baseline: {accelerator: A100, count: 8, hosts: 1}
  candidate: {accelerator: Trainium2, count: 8, hosts: 1}
precision:
  weights: fp32
  activations: bf16
  gradients: bf16
  optimizer_state: fp32
  accumulation: fp32
  best: {candidate: {weights: bf16, activations: fp8, gradients: bf16, optimizer_state: bf16, accumulation: fp32}}
YAML
run_mt 0 spec
python3 "$MT_SOURCE_DIR/tests/data/runs/seq_series.py" "$T_TMP/c120.csv"
sed 's/(120 if/(40 if/' "$MT_SOURCE_DIR/tests/data/runs/seq_series.py" >"$T_TMP/seq40.py"
python3 "$T_TMP/seq40.py" "$T_TMP/c40.csv"
run_mt 0 runs import "$T_TMP/c120.csv" --system candidate --devices 8
run_mt 0 runs import "$T_TMP/c40.csv" --system candidate --devices 8 --design best

# --- scaling: one design at a time, the other counted as left out ---
run_mt 0 scaling --json
eq "$(json "j['design']")" matched "the default design is matched"
eq "$(json "[r['runs'] for r in j['systems']['candidate']['topologies']]")" "[1]" \
	"8 devices: the matched run alone, never pooled with the best one"
eq "$(json "j['systems']['candidate']['other_design_runs']")" 1 "the best-recipe run is counted as left out"
run_mt 0 scaling --design best --json
eq "$(json "j['design']")" best "--design best"
eq "$(json "[r['runs'] for r in j['systems']['candidate']['topologies']]")" "[1]" "the best run alone"
eq "$(json "j['systems']['candidate']['other_design_runs']")" 1 "the matched run left out"
run_mt 0 scaling --system candidate
has "The matched design's runs." "$OUT" "the text names the design"
has "1 best-recipe run left out: another experiment, never pooled with these (--design best)." \
	"$OUT" "and the runs left out"
run_mt 2 scaling --design fast
has "--design fast: expected matched or best" "$ERR" "a bad design is refused, exit 2"

# --- buckets: the compile time is the median of one design's runs ---
run_mt 0 buckets --from run 1 --compile-seconds auto --step-seconds auto --json
eq "$(json "j['inputs']['compile_runs']")" "[1]" "matched: run 1 alone"
eq "$(json "abs(j['inputs']['compile_seconds'] - 120) < 1")" True "its 120 s, not a median with 40 s"
eq "$(json "j['inputs']['compile_design'], j['inputs']['compile_other_design_runs']")" \
	"matched 1" "the design and the run left out"
run_mt 0 buckets --from run 1 --compile-seconds auto --step-seconds auto
has "1 candidate run of the other design left out of the compile time" "$OUT" "said in words"
run_mt 0 buckets --from run 2 --compile-seconds auto --step-seconds auto --design best --json
eq "$(json "j['inputs']['compile_runs']")" "[2]" "best: run 2 alone"
eq "$(json "abs(j['inputs']['compile_seconds'] - 40) < 1")" True "its 40 s"
run_mt 2 buckets --from run 1 --compile-seconds auto --step-seconds auto --design fast
has "--design fast" "$ERR" "a bad design is refused, exit 2"
# --from run names a best-recipe run: its design is the default, and a
# --design that contradicts it is refused naming both
run_mt 0 buckets --from run 2 --compile-seconds auto --step-seconds auto --json
eq "$(json "j['inputs']['compile_design'], j['inputs']['compile_runs']")" "best [2]" \
	"no --design: run 2's own design, best, and its 40 s"
run_mt 0 buckets --from run 2 --compile-seconds auto --step-seconds auto
has "from run 2 (best design)" "$OUT" "the text names the run's design"
has "the median of the candidate's best-design runs" "$OUT" "and the compile time's"
run_mt 2 buckets --from run 2 --compile-seconds auto --step-seconds auto --design matched
has "--design matched, but run 2 is of the best design" "$ERR" "a contradicting --design: exit 2, both named"
run_mt 2 buckets --from run 1 --compile-seconds 5 --step-seconds 0,1 --design best
has "--design best, but run 1 is of the matched design" "$ERR" "the other way round too"

# --- the report: the matched figures, and the best runs' as their own ---
run_mt 0 report --format md
has "These are the matched design's runs: the 1 best-recipe run(s) are another experiment, never pooled with them, their figures apart (Scaling: best recipe)." \
	"$OUT" "report: scaling points at the best runs' own figures"
hasnt "left out" "$(printf '%s\n' "$OUT" | sed -n '/^## Compilation and shapes/,/^## Tracks/p')" \
	"report: no best run is only named as left out in the compile and scaling sections"
has "### Scaling: best recipe, candidate (Trainium2)" "$OUT" "report: the best runs' scaling, labelled"
best_scaling=$(printf '%s\n' "$OUT" | sed -n '/^### Scaling: best recipe, candidate/,/^## /p')
has "| 8 | 1 | 1 | 0 |" "$best_scaling" "report: one best run at 8 devices, apart"
has "(the median of the candidate's matched-design runs;
1 best-recipe run(s) apart, another experiment never in this median)" "$OUT" \
	"report: the matched compile median, the best run apart"
has "### Compilation: best recipe" "$OUT" "report: the best runs' compile figures, labelled"
best_comp=$(printf '%s\n' "$OUT" | sed -n '/^### Compilation: best recipe/,/^## /p')
has "Shape buckets (\`mtrial buckets --from run 2 --compile-seconds auto --step-seconds auto\`):
300 steps, 40.1 s a compilation (the median of the candidate's best-design runs;
1 matched run(s) apart, another experiment never in this median)." "$best_comp" \
	"report: compile median best: run 2's 40 s, never pooled with the matched 120 s"
has "No break-even of the best recipe: the baseline has no run of the best design" "$best_comp" \
	"report: the best break-even says what it lacks"
run_mt 0 report --format json
eq "$(json "j['compilation']['best_recipe']['buckets']['compile_runs'], j['compilation']['buckets']['compile_runs']")" \
	"[2] [1]" "report JSON: each design's compile median of its own runs"
eq "$(json "j['scaling']['best_recipe']['run_count'], [r['runs'] for s in j['scaling']['best_recipe']['systems'] for r in s['rows']]")" \
	"1 [1]" "report JSON: the best scaling of the best run alone"
run_mt 0 report --format html -o "$T_TMP/d.html"
has "<h3>Scaling: best recipe, candidate (Trainium2)</h3>" "$(cat "$T_TMP/d.html")" "html: the best scaling, labelled"
has "Best recipe: time against devices" "$(cat "$T_TMP/d.html")" "html: its own chart"
has "<h3>Compilation: best recipe</h3>" "$(cat "$T_TMP/d.html")" "html: the best compile figures"

# --- a trial whose only runs are best: the report says so, never 'no run' ---
run_mt 0 runs mark 1 --rehearsal
run_mt 0 report --format md
has "These are the matched design's runs (none yet): the 1 best-recipe run(s) are another experiment" "$OUT" \
	"report: best runs alone are named, not dropped"
has "### Scaling: best recipe, candidate (Trainium2)" "$OUT" "and shown as their own"
run_mt 0 runs mark 2 --rehearsal
run_mt 0 report --format md
hasnt "best recipe" "$OUT" "no best run left as evidence: no best section"

# --- trial.yaml: a best criterion without precision.best is refused ---
python3 - .mtrial/trial.yaml <<'PY2'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"\n  best: .*\n", "\n", s) + "criteria:\n  - {name: speed, kind: time_to_quality, design: best}\n"
open(p, "w").write(s)
PY2
run_mt 2 spec
has "trial.yaml:13:50: 'criteria.0.design' is best, but trial.yaml gives no precision.best" "$ERR" \
	"mtrial spec names the field and its line, exit 2"
finish
