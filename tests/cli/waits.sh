# Waiting for data and for each other (issue 17, part 4): data_s= and comm_s=
# on protocol step lines, and the data_s/data_time and comm_s columns of a
# series, give the share of the steady time a run's steps waited for input
# and spent communicating. A run that reports neither says so (null), never 0.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name waits

# 40 steps of 1 s; from step 11 on each waited 0.25 s for data and
# communicated 0.1 s; the warm-up (5 intervals) is left out.
L=$T_TMP/proto.log
t=1764496840000
for s in $(seq 1 40); do
	extra=""
	[ "$s" -gt 10 ] && extra=" data_s=0.25 comm_s=0.1"
	echo "mtrial:step=$s loss=2.0 time_ms=$((t + 1000 * s))$extra"
done >"$L"
run_mt 0 runs import "$L" --system candidate
run_mt 0 runs show 1 --json
eq "$(json "round(j['metrics']['steady']['data_wait']['share'], 6)")" 0.25 "a quarter of each step waited for data"
eq "$(json "j['metrics']['steady']['data_wait']['intervals']")" 30 "over the 30 steady intervals that report it"
eq "$(json "round(j['metrics']['steady']['comm_wait']['share'], 6)")" 0.1 "a tenth communicating"

run_mt 0 runs show 1
has "waits    25.0% of the steady time waiting for input, 10.0% communicating" "$OUT" "runs show says it"

# a line every 2 steps stands for both: its per-step wait counts twice
L2=$T_TMP/every2.log
for s in $(seq 2 2 60); do
	echo "mtrial:step=$s loss=2.0 time_ms=$((t + 1000 * s)) data_s=0.3"
done >"$L2"
run_mt 0 runs import "$L2" --system candidate
run_mt 0 runs show 2 --json
eq "$(json "round(j['metrics']['steady']['data_wait']['share'], 6)")" 0.3 "0.3 s per 1 s step, lines 2 steps apart"
eq "$(json "j['metrics']['steady']['comm_wait']")" None "comm_s not reported: null, not 0"

# a series with mmengine's data_time column (seconds per iteration)
C=$T_TMP/series.csv
{
	echo "step,time,loss,data_time"
	for s in $(seq 1 30); do echo "$s,$((2 * s)),1.5,0.5"; done
} >"$C"
run_mt 0 runs import "$C" --system baseline
run_mt 0 runs show 3 --json
eq "$(json "round(j['metrics']['steady']['data_wait']['share'], 6)")" 0.25 "0.5 s of each 2 s step"

# a run reporting neither: both null
L3=$T_TMP/plain.log
for s in $(seq 1 20); do echo "mtrial:step=$s loss=2.0 time_ms=$((t + 1000 * s))"; done >"$L3"
run_mt 0 runs import "$L3" --system baseline
run_mt 0 runs show 4 --json
eq "$(json "j['metrics']['steady']['data_wait']")" None "not measured is null"
run_mt 0 runs show 4
has "waits    not measured" "$OUT" "and runs show says it is not measured"

# a negative wait is a warning naming the line; the step still counts
L4=$T_TMP/bad.log
for s in $(seq 1 20); do
	w=0.2; [ "$s" -eq 12 ] && w=-1
	echo "mtrial:step=$s loss=2.0 time_ms=$((t + 1000 * s)) data_s=$w"
done >"$L4"
run_mt 0 runs import "$L4" --system baseline
run_mt 0 runs show 5 --json
has "data_s must be seconds >= 0" "$OUT" "the bad value is named"
finish
