# Compile economics (issue 16, parts 2 and 3): mtrial buckets and mtrial
# breakeven, from given figures and from the trial's own runs.
#  - the bucket model on a case worked by hand, with its alternatives;
#  - --from run: the run's seq= lengths, its measured compilation and a fit
#    of its steady steps, which recovers the step time the log was made with;
#  - break-even: the issue's example (3,540 steps), no crossing, and from
#    the trial's runs with trial.yaml's prices;
#  - bad input: FILE:LINE, exit 2, and what to log when a run has no seq.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name econ

# 10 steps of 100 and 1 of 1000, 50 s a compilation, 1 ms a token:
# pad to max 50 + 11 x 1.0 = 61 s, a bucket per length 100 + 1 + 1 = 102 s.
printf '# longest sequence per step\n100,10\n1000\n' >"$T_TMP/len.txt"
run_mt 0 buckets --lengths "$T_TMP/len.txt" --compile-seconds 50 --step-seconds 0,0.001 --json
eq "$(json "j['buckets']")" "[1000]" "one bucket"
eq "$(json "round(j['predicted_seconds'], 6)")" 61.0 "50 + 11 x 1.0"
eq "$(json "round(j['alternatives']['per_length']['predicted_seconds'], 6)")" 102.0 "a bucket per length"
eq "$(json "round(j['padding_fraction'], 4)")" 0.8182 "9000 of 11000 positions are padding"
eq "$(json "round(j['saving_seconds'], 6)")" 0.0 "the best is padding to the longest"
eq "$(json "j['inputs']['compile_from']")" given "given"
run_mt 0 buckets --lengths "$T_TMP/len.txt" --compile-seconds 0.5 --step-seconds 0,0.001
has "per length" "$OUT" "the table has the three plans"
has "The best plan is a bucket per length" "$OUT" "cheap compiles: a bucket per length"

# bad input
printf '512\n0\n' >"$T_TMP/bad.txt"
run_mt 2 buckets --lengths "$T_TMP/bad.txt" --compile-seconds 5 --step-seconds 0,1
has "bad.txt:2:" "$ERR" "FILE:LINE"
run_mt 2 buckets --lengths "$T_TMP/len.txt" --compile-seconds -5 --step-seconds 0,1
has "--compile-seconds" "$ERR" "negative seconds"
run_mt 2 buckets --lengths "$T_TMP/len.txt" --compile-seconds 5 --step-seconds 0,1 --max-buckets 0
has "--max-buckets" "$ERR" "at least one bucket"
run_mt 2 buckets --lengths "$T_TMP/len.txt" --compile-seconds 5 --step-seconds auto
has "--from run" "$ERR" "a fit needs a run"

# A run whose steps give their length (a seq column): 0.2 + 0.0004 L s a
# step, 120 s more on the first step of each new length (a compilation),
# the time in seconds from the start.
python3 "$MT_SOURCE_DIR/tests/data/runs/seq_series.py" "$T_TMP/seq.csv"
run_mt 0 runs import "$T_TMP/seq.csv" --system candidate
run_mt 0 runs show 1 --json
eq "$(json "j['metrics']['compiles']['count'] >= 5")" True "a compilation per new length"
run_mt 0 buckets --from run 1 --compile-seconds auto --step-seconds auto --json
eq "$(json "j['inputs']['compile_runs']")" "[1]" "the candidate's run"
eq "$(json "abs(j['inputs']['compile_seconds'] - 120) < 1")" True "its median compilation, about 120 s"
eq "$(json "j['inputs']['step_from']")" fit "fitted"
eq "$(json "abs(j['inputs']['step_seconds']['b'] - 0.0004) < 2e-5")" True "the fit recovers 0.4 ms a token"
eq "$(json "abs(j['inputs']['step_seconds']['a'] - 0.2) < 0.02")" True "and 0.2 s a step"
eq "$(json "j['steps']")" 300 "every step"
eq "$(json "j['predicted_seconds'] <= min(j['alternatives']['pad_to_max']['predicted_seconds'], j['alternatives']['per_length']['predicted_seconds']) + 1e-6")" True "the optimum is no worse than either alternative"
run_mt 0 buckets --from run:1 --compile-seconds 120 --step-seconds 0.2,0.0004 --max-buckets 2 --multiple-of 256 --json
eq "$(json "len(j['buckets']) <= 2 and all(b % 256 == 0 for b in j['buckets'])")" True "K and M hold"

# a run without seq
{ echo "step,time,loss"; for s in $(seq 1 30); do echo "$s,$((10 + s / 2)).$((s % 2 * 5)),2.0"; done; } >"$T_TMP/noseq.csv"
run_mt 0 runs import "$T_TMP/noseq.csv" --system baseline
run_mt 2 buckets --from run 2 --compile-seconds 5 --step-seconds 0,1
has "seq=" "$ERR" "says what to log"
run_mt 2 buckets --from run 9 --compile-seconds 5 --step-seconds 0,1
has "no such run" "$ERR" "an unknown run"

# break-even
run_mt 0 breakeven --baseline 60,2.0 --candidate 3600,1.0 --json
eq "$(json "j['topologies'][0]['steps']")" 3540 "the issue's example"
eq "$(json "j['topologies'][0]['winner_after']")" candidate "the candidate after"
run_mt 0 breakeven --baseline 60,2.0 --candidate 30,1.0 --json
eq "$(json "j['topologies'][0]['steps']")" None "no crossing"
has "every run length" "$(json "j['topologies'][0]['reason']")" "says why"
run_mt 2 breakeven --baseline 60,2.0
run_mt 2 breakeven --baseline 60,-1 --candidate 30,1
has "baseline step" "$ERR" "names the value"

# from the trial's runs, priced: the baseline (run 2, a series from its
# start) takes 10.5 s to its first step and 0.5 s a step; the candidate's
# figures are its run's.
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: econ
systems:
  baseline: {accelerator: H100, count: 8, hosts: 1, price: {hourly: 98, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 40, currency: USD}}
YAML
run_mt 0 breakeven --json
eq "$(json "j['topologies'][0]['runs']")" "{'baseline': [2], 'candidate': [1]}" "the runs it used"
eq "$(json "j['topologies'][0]['baseline']['step_s']")" 0.5 "the baseline's median step"
eq "$(json "j['topologies'][0]['baseline']['start_s']")" 10.5 "the baseline's clock 1"
eq "$(json "j['topologies'][0]['cost_steps'] is not None or j['topologies'][0]['cost_reason'] is not None")" True "cost worked out or why not"

# the report's section: the compilations of each run, the break-even of the
# trial's runs and the bucket advice from the candidate's run, the chart
run_mt 0 report --format md
has "## Compilation and shapes" "$OUT" "the section"
has "| #1 | candidate | " "$OUT" "the candidate run's compilations"
has "the candidate after." "$OUT" "the break-even from the runs"
has "Shape buckets (\`mtrial buckets --from run 1" "$OUT" "the advice names its run"
has "| a bucket per length | 128, 256, 384, 512, 1024, 2048 | 6 |" "$OUT" "the alternatives"
run_mt 0 report --format html -o "$T_TMP/r.html"
has "Total time against run length" "$(cat "$T_TMP/r.html")" "the chart"

# the advice reads the newest 5 candidate logs at most: four newer ones
# without lengths, and run 1 still gives it; a fifth, and it says why not
for i in 1 2 3 4 5; do
	sed "s/2.0\$/2.$i/" "$T_TMP/noseq.csv" >"$T_TMP/noseq$i.csv"
	run_mt 0 runs import "$T_TMP/noseq$i.csv" --system candidate
	[ "$i" = 4 ] || continue
	run_mt 0 report --format json
	eq "$(json "j['compilation']['buckets']['run']")" 1 "after four newer runs without lengths, run 1's advice"
done
run_mt 0 report --format json
eq "$(json "j['compilation']['buckets']")" None "after five, no advice"
has "the newest 5 candidate runs give no bucket advice" "$(json "j['compilation']['buckets_missing']")" \
	"and why, with the command for an older run"
finish
