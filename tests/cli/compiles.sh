# Compilations in a run (issue 16, part 1): counted from the stalls of a
# run's steps (the first step's and each stall's excess over the steady step)
# and from Neuron compile-cache lines, in runs --json and runs show --json.
#  - the TRL #7733 steps (741, 733, 24, 752, 25, 29 s): three compilations of
#    about 716 s each, 93% of the run;
#  - a line-protocol log whose step 1 and one later step stall, with
#    compile-cache miss lines: "both";
#  - a run with no stall: no compilation, 0 s, never null.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name compiles

run_mt 0 runs import "$MT_SOURCE_DIR/tests/data/runs/trl7733.csv" --system candidate
run_mt 0 runs show 1 --json
eq "$(json "j['metrics']['compiles']['count']")" 3 "TRL #7733: three compilations"
eq "$(json "round(j['metrics']['compiles']['seconds_each'])")" 716 "TRL #7733: the median compilation"
eq "$(json "round(j['metrics']['compiles']['seconds_total'])")" 2151 "716 + 708 + 727"
eq "$(json "j['metrics']['compiles']['steady_step_s']")" 25.0 "the median of 24, 25, 29"
eq "$(json "round(j['metrics']['compiles']['share'], 3)")" 0.934 "2151 of 2304 s"
eq "$(json "j['metrics']['compiles']['from']")" stalls "no cache lines"
eq "$(json "[s['step'] for s in j['metrics']['stalls']]")" "[2, 4]" "stalls are judged from the first interval"
run_mt 0 runs show 1
has "compiles 3, 716 s each (median), 2151 s in all, 93% of the attempt" "$OUT" "runs show says it"
run_mt 0 runs --json
eq "$(json "j['runs'][0]['metrics']['compiles']['count']")" 3 "runs --json carries it"

# A protocol log: 40 s to step 1, 0.5 s steps, a 60 s stall at step 20, two
# cache misses: both sources.
L=$T_TMP/proto.log
{
	echo "2026-11-30 10:00:00.000000:  1234  INFO ||NEURON_CC_WRAPPER||: No candidate found under /var/tmp/neuron-compile-cache"
	t=1764496840000
	for s in $(seq 1 40); do
		[ "$s" -gt 1 ] && t=$((t + 500))
		[ "$s" -eq 20 ] && { echo "2026-11-30 10:01:00.000000:  1234  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile"; t=$((t + 60000)); }
		echo "mtrial:step=$s loss=2.0 seq=512 time_ms=$t"
	done
} >"$L"
run_mt 0 runs import "$L" --system candidate
run_mt 0 runs show 2 --json
eq "$(json "j['metrics']['compiles']['from']")" both "stalls and cache lines"
eq "$(json "j['metrics']['compiles']['count']")" 1 "the stall at step 20 (clock 1 is unknown: no submission)"
eq "$(json "j['metrics']['compiles']['cache_misses']")" 2 "two cache misses"
eq "$(json "round(j['metrics']['compiles']['seconds_each'])")" 60 "60.5 s less a 0.5 s step"

# No stall: zero compilations, a figure, not null.
L2=$T_TMP/steady.log
for s in $(seq 1 30); do echo "mtrial:step=$s loss=2.0 time_ms=$((1764496840000 + s * 500))"; done >"$L2"
run_mt 0 runs import "$L2" --system baseline
run_mt 0 runs show 3 --json
eq "$(json "j['metrics']['compiles']['count']")" 0 "no stall, no compilation"
eq "$(json "j['metrics']['compiles']['seconds_total']")" 0.0 "0 s"
eq "$(json "j['metrics']['compiles']['seconds_each']")" None "no median of nothing"
run_mt 0 runs show 3
has "compiles none: no interval stalls against the steady 0.5 s" "$OUT" "runs show says none, and against what"
finish
