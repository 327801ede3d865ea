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

# --- the report: matched figures, the best runs named as left out ---
run_mt 0 report --format md
has "1 best-recipe run(s) are left out, another experiment never pooled with them (\`mtrial scaling --design best\`)" \
	"$OUT" "report: scaling names the best run left out"
has "(the median of the candidate's matched-design runs;
1 best-recipe run(s) left out, another experiment)" "$OUT" "report: the compile time of the matched runs, the best one left out"

# --- a trial whose only runs are best: the report says so, never 'no run' ---
run_mt 0 runs mark 1 --rehearsal
run_mt 0 report --format md
has "These are the matched design's runs (none yet): 1 best-recipe run(s) are left out" "$OUT" \
	"report: best runs alone are named, not dropped"

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
