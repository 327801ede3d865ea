# mtrial run and mtrial runs: a fake training command run as a child, its
# output passed through and kept line by line with its time; failed,
# interrupted and unstartable attempts kept, never dropped; the list and one
# run, as text and JSON; bad usage.
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
eq "$?" 1 "an interrupted run exits 1"
check "the command was stopped" sh -c "! grep -q never '$T_TMP/int.out'"
has "run #4 aborted" "$(cat "$T_TMP/int.err")" "interrupted attempt kept"

run_mt 0 runs --json
eq "$(json '[(r["id"], r["system"], r["track"], r["status"], r["exit_status"]) for r in j]')" \
	"[(1, 'baseline', 'portability', 'success', 0), (2, 'candidate', 'optimized', 'failed', 3), (3, 'candidate', None, 'failed', 127), (4, 'candidate', None, 'aborted', 130)]" \
	"every attempt, failed ones too"
eq "$(json 'j[0]["label"], j[0]["command"].endswith("train.sh"), j[0]["source"].endswith("-baseline.log")')" \
	"first True True" "label, command and log recorded"
eq "$(json 'all(r["started"].endswith("Z") and r["ended"].endswith("Z") for r in j)')" True "ISO 8601 times"
run_mt 0 runs
has "aborted" "$OUT" "text list"
run_mt 0 runs show 2 --json
eq "$(json 'j["status"], j["track"]')" "failed optimized" "one run as JSON"
run_mt 0 runs show 1; has "label    first" "$OUT" "one run as text"
run_mt 2 runs show 99; has "no run #99" "$ERR" "an unknown run"
run_mt 2 runs show x; has "expected a run id" "$ERR" "a bad id"

run_mt 0 report
has "4 attempts recorded, 3 of them failed or aborted" "$OUT" "report: every attempt counted"
has "| #4 | candidate |  | interrupted | aborted | 130 |" "$OUT" "report: the aborted attempt listed"

run_mt 2 run; has "no command" "$ERR" "no command"
run_mt 2 run --system gpu -- true; has "expected baseline or candidate" "$ERR" "bad system"
run_mt 2 run --track fast -- true; has "expected portability or optimized" "$ERR" "bad track"
run_mt 2 run --cache hot -- true; has "expected cold or warm" "$ERR" "bad cache"
cd "$T_TMP" && run_mt 2 run -- true; has "no trial found" "$ERR" "a run needs a trial"
finish
