# probes/optrace.py on the tiny training loop in tests/trace/: the ops it
# must dispatch, phase by phase and with their shapes; the losses are the
# same with and without the tracer; --max-steps, --shape-cap, a script that
# raises or exits, and bad usage. Runs with Debian's python3-torch (1.13);
# the python3 on PATH may have no torch at all.
. "$MT_SOURCE_DIR/tests/lib.sh"
PY=${OPTRACE_PYTHON:-/usr/bin/python3}
OPTRACE=$MT_SOURCE_DIR/probes/optrace.py
LOOP=$MT_SOURCE_DIR/tests/trace/train_loop.py

# No skip convention here, and scripts/install-deps installs python3-torch:
# a missing torch is a failure, said plainly.
if ! "$PY" -c 'import torch' 2>/dev/null; then
	bad "$PY cannot import torch: install python3-torch (scripts/install-deps) or set OPTRACE_PYTHON"
	finish
	exit 1
fi

# trace OUT_JSON ARGS...: runs optrace from the scratch directory (so the
# loop's sibling import works only through sys.path), keeps $RC, $OUT, $ERR.
trace() {
	local out=$1; shift
	(cd "$T_TMP" && "$PY" "$OPTRACE" -o "$out" "$@") >"$T_TMP/out" 2>"$T_TMP/err"
	RC=$?; OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err")
}
# q FILE JQ_EXPR: compact jq output
q() { jq -c "$2" "$1"; }
# op FILE OP OVERLOAD JQ_EXPR: EXPR over one op's record
op() { jq -c --arg n "$2" --arg o "$3" ".ops[] | select(.op==\$n and .overload==\$o) | $4" "$1"; }

mkdir "$T_TMP/o"
J=$T_TMP/o/ops.json
(cd "$T_TMP" && "$PY" "$LOOP") >"$T_TMP/plain.txt" 2>&1
trace "$J" -- "$LOOP"
eq "$RC" 0 "a completed run exits 0; stderr: $ERR"
eq "$OUT" "$(cat "$T_TMP/plain.txt")" "losses identical with and without the tracer"
eq "$(grep -c loss "$T_TMP/plain.txt")" 5 "the loop printed 5 losses"
eq "$(ls -A "$T_TMP/o")" ops.json "one file written, no temporary left"

# the document
eq "$(q "$J" 'keys_unsorted')" '["format","version","torch","python","command","devices","steps","step_counter","optimizer_steps","backward_passes","max_steps","shape_cap","ended","exit_status","error","incomplete","warnings","ops"]' "top-level keys"
eq "$(q "$J" '[.step_counter,.optimizer_steps,.backward_passes,.incomplete,.warnings]')" '["optimizer",5,5,null,[]]' "steps counted by the optimizer"
eq "$(q "$J" '[.format,.version,.steps,.max_steps,.ended,.exit_status,.error,.devices]')" '["mtrial-optrace",1,5,null,"completed",null,null,["cpu"]]' "header"
eq "$(q "$J" .torch)" "\"$("$PY" -c 'import torch; print(torch.__version__)')\"" "torch version"
eq "$(q "$J" .command)" "[\"$LOOP\"]" "command"
eq "$(q "$J" '.ops | map([.op,.overload]) == (map([.op,.overload]) | sort)')" true "ops sorted by op then overload"
eq "$(q "$J" '[.ops[] | select(.count != (.phases | add))] | length')" 0 "phase counts add up to count"
eq "$(q "$J" '.ops[0] | keys_unsorted')" '["op","overload","count","phases","backward_only","dtypes","shapes","distinct_shapes","shapes_truncated","all_distinct_shapes"]' "op keys"
eq "$(q "$J" '.ops[0].phases | keys_unsorted')" '["setup","forward","backward","optimizer"]' "phases"
# the model's weight init and the fixed batch (torch.randn) come before the
# first op that records autograd history: set-up, never forward
eq "$(op "$J" aten::randn default '[.phases.setup,.phases.forward,.distinct_shapes,.all_distinct_shapes]')" '[2,0,0,1]' \
	"randn of the batch: set-up, no training shape"
# a factory op has no tensor input: its dtype is its output's
eq "$(op "$J" aten::randn default .dtypes)" '["float32"]' "randn's dtype, from its output"

# forward. nn.Linear on a 2-D input with bias is CompositeImplicitAutograd:
# it decomposes above the Python dispatch key into aten::t(weight) and
# aten::addmm(bias, input, weight_t), so the mode sees those two and never
# aten::linear (seen on 1.13 CPU). Two layers x 5 steps.
eq "$(op "$J" aten::addmm default '[.count,.phases.forward,.backward_only]')" '[10,10,false]' "addmm: layers x steps, forward"
eq "$(op "$J" aten::t default .phases.forward)" 10 "t: one per linear in forward"
eq "$(op "$J" aten::relu default '[.count,.phases.forward]')" '[5,5]' "relu"
eq "$(op "$J" aten::mse_loss default '[.count,.phases.forward]')" '[5,5]' "mse_loss"
eq "$(q "$J" '[.ops[] | select(.op=="aten::linear")] | length')" 0 "no aten::linear reaches the mode"
eq "$(op "$J" aten::addmm default '[.shapes,.distinct_shapes,.shapes_truncated,.dtypes]')" \
	'[[[[16],[4,8],[8,16]],[[4],[4,16],[16,4]]],2,false,["float32"]]' "addmm input signatures"
eq "$(op "$J" aten::mse_loss default .shapes)" '[[[4,4],[4,4]]]' "mse_loss shapes"

# backward: the autograd engine runs CPU backward on the calling thread,
# inside the mode, so its ops are seen
for o in aten::mse_loss_backward aten::threshold_backward; do
	eq "$(op "$J" "$o" default '[.count,.backward_only]')" '[5,true]' "$o backward-only"
done
eq "$(op "$J" aten::mse_loss_backward default .shapes)" '[[[],[4,4],[4,4]]]' "mse_loss_backward shapes"
eq "$(op "$J" aten::mm default .backward_only)" true "linear backward is mm"
eq "$(q "$J" '[.ops[] | select(.backward_only) | .op] | index("aten::addmm")')" null "addmm not backward-only"

# optimizer: SGD without momentum is param.add_(grad, alpha=-lr), one per
# parameter (4) per step
eq "$(op "$J" aten::add_ Tensor .phases.optimizer)" 20 "SGD update in the optimizer phase"
eq "$(q "$J" '[.ops[] | select(.phases.optimizer > 0) | .op] | map(select(test("addmm|mse_loss|relu"))) | length')" 0 "no model op in the optimizer phase"

# --max-steps stops after the Nth step, inside the step: one loss printed
trace "$J" --max-steps 2 -- "$LOOP"
eq "$RC" 0 "--max-steps exits 0; stderr: $ERR"
eq "$(q "$J" '[.ended,.steps,.max_steps,.error]')" '["max_steps",2,2,null]' "--max-steps 2"
eq "$(op "$J" aten::addmm default .count)" 4 "addmm: 2 layers x 2 steps"
eq "$(op "$J" aten::mse_loss_backward default .count)" 2 "mse_loss_backward 2"
eq "$(op "$J" aten::add_ Tensor .phases.optimizer)" 8 "SGD update 4 x 2"
eq "$(printf '%s\n' "$OUT" | grep -c loss)" 1 "stopped inside the second step"

# arguments reach the script
trace "$J" -- "$LOOP" --steps 3
eq "$(q "$J" '[.steps,.command]')" "[3,[\"$LOOP\",\"--steps\",\"3\"]]" "script arguments"
eq "$(op "$J" aten::addmm default .count)" 6 "addmm 2 x 3"

# --shape-cap keeps the first K signatures and counts them all
trace "$J" --shape-cap 1 "$LOOP"
eq "$RC" 0 "options without --; stderr: $ERR"
eq "$(op "$J" aten::addmm default '[.shapes,.distinct_shapes,.shapes_truncated]')" '[[[[16],[4,8],[8,16]]],2,true]' "capped shapes"
eq "$(q "$J" .shape_cap)" 1 "shape_cap recorded"

# an LR scheduler re-wraps optimizer.step; LBFGS runs the model in a closure
(cd "$T_TMP" && "$PY" "$LOOP" --sched) >"$T_TMP/plain.txt" 2>&1
trace "$J" -- "$LOOP" --sched
eq "$OUT" "$(cat "$T_TMP/plain.txt")" "with a scheduler: same losses, no warning"
eq "$(q "$J" .steps)" 5 "with a scheduler: 5 steps"
(cd "$T_TMP" && "$PY" "$LOOP" --lbfgs) >"$T_TMP/plain.txt" 2>&1
trace "$J" -- "$LOOP" --lbfgs
eq "$OUT" "$(cat "$T_TMP/plain.txt")" "LBFGS: same losses"
eq "$(q "$J" .steps)" 5 "LBFGS: 5 steps"
eq "$(op "$J" aten::mse_loss default '[.phases.optimizer,.phases.forward > 0]')" '[0,true]' "LBFGS closure is forward"
eq "$(op "$J" aten::mse_loss_backward default .backward_only)" true "LBFGS closure's backward is backward"

# a script that raises: status 1, the error on stderr, the file still written
rm -f "$J"
trace "$J" -- "$LOOP" --raise-at 2
eq "$RC" 1 "a raising script exits 1"
has "raised ValueError: boom at step 2" "$ERR" "the error on stderr"
has 'train_loop.py", line' "$ERR" "the script's traceback on stderr"
eq "$(q "$J" '[.ended,.error,.steps,.exit_status]')" '["exception","ValueError: boom at step 2",2,null]' "exception recorded"
eq "$(op "$J" aten::addmm default .count)" 4 "ops until the error"

# sys.exit: its status, passed on
trace "$J" -- "$LOOP" --exit-at 1 3
eq "$RC" 3 "sys.exit(3) exits 3"
eq "$(q "$J" '[.ended,.exit_status,.error,.steps]')" '["exit",3,null,1]' "exit recorded"

# --- without torch.optim, as word_language_model trains by default --------------
MANUAL=$MT_SOURCE_DIR/tests/trace/manual_loop.py
(cd "$T_TMP" && "$PY" "$MANUAL") >"$T_TMP/plain.txt" 2>&1
trace "$J" -- "$MANUAL"
eq "$RC" 0 "manual updates: exit 0; stderr: $ERR"
eq "$OUT" "$(cat "$T_TMP/plain.txt")" "manual updates: losses identical with and without the tracer"
eq "$(q "$J" '[.steps,.step_counter,.optimizer_steps,.backward_passes]')" '[4,"backward",0,4]' \
	"steps counted as backward passes"
has "steps counted as backward passes" "$ERR" "and a warning says so"
eq "$(q "$J" '.warnings | length')" 1 "the warning is in the file"
# set-up: one torch.tensor per line of 7 lengths, never forward, and no
# training shape; the model's ops are forward
eq "$(op "$J" aten::lift_fresh default '[.count,.phases.setup,.phases.forward,.distinct_shapes,.all_distinct_shapes,.shapes]')" \
	'[30,30,0,0,7,[]]' "data loading per line is set-up, its 7 shapes apart"
eq "$(op "$J" aten::embedding default '[.count,.phases.forward,.phases.setup]')" '[4,4,0]' "the model is forward"
eq "$(q "$J" '[.ops[] | select(.phases.setup > 0 and .phases.forward > 0) | .op]')" '["aten::slice"]' \
	"only the batch slicing runs in both (the first batch is cut before the model runs)"

trace "$J" --max-steps 2 -- "$MANUAL"
eq "$RC" 0 "--max-steps without an optimizer exits 0; stderr: $ERR"
eq "$(q "$J" '[.ended,.steps,.step_counter]')" '["max_steps",2,"backward"]' "--max-steps stops after 2 backward passes"
eq "$(op "$J" aten::embedding default .count)" 2 "two forwards"
has "that step's update is not traced" "$ERR" "the warning says what the stop leaves out"

# no training step at all: --max-steps cannot stop it, and says so
printf 'import torch\nprint(torch.ones(3).sum().item())\n' >"$T_TMP/infer.py"
trace "$J" --max-steps 2 -- "$T_TMP/infer.py"
eq "$(q "$J" '[.steps,.step_counter]')" '[0,null]' "no step"
has "no training step seen" "$ERR" "warned"
has "--max-steps could not stop the script" "$ERR" "--max-steps ignored, said"

# a signal (what timeout sends, Ctrl-C) stops the script: what was seen is
# written, marked incomplete
for sig in TERM INT HUP; do
	rm -f "$J"
	(cd "$T_TMP" && exec "$PY" "$OPTRACE" -o "$J" -- "$MANUAL" --sleep-at 2) >"$T_TMP/out" 2>"$T_TMP/err" &
	pid=$!
	for _ in $(seq 300); do grep -q sleeping "$T_TMP/out" && break; sleep 0.1; done
	kill -s $sig $pid; wait $pid; RC=$?; ERR=$(cat "$T_TMP/err")
	want=$((128 + $(kill -l $sig)))
	eq "$RC" "$want" "SIG$sig: exit $want"
	eq "$(q "$J" '[.ended,.steps,.exit_status]')" "[\"signal\",2,$want]" "SIG$sig: the trace written with 2 steps"
	has "killed by SIG$sig" "$(q "$J" .incomplete)" "SIG$sig: marked incomplete, with the reason"
	has "marked incomplete" "$ERR" "SIG$sig: said on stderr"
	eq "$(op "$J" aten::embedding default .count)" 2 "SIG$sig: the ops until then"
done

# what cannot be caught (SIGKILL, the OOM killer) leaves the last snapshot,
# written after a step (--every 0: after each), marked as still running;
# no temporary file is left beside it
printf '%s\n' 'import os, signal, torch' 'm = torch.nn.Linear(4, 2)' \
	'opt = torch.optim.SGD(m.parameters(), lr=0.1)' 'for s in range(5):' \
	'    opt.zero_grad(); m(torch.randn(3, 4)).sum().backward(); opt.step()' \
	'    if s == 2: os.kill(os.getpid(), signal.SIGKILL)' >"$T_TMP/killed.py"
rm -rf "$T_TMP/k" && mkdir "$T_TMP/k"
(cd "$T_TMP/k" && exec "$PY" "$OPTRACE" -o ops.json --every 0 -- "$T_TMP/killed.py") >/dev/null 2>&1
eq "$?" 137 "SIGKILL: the process is killed"
eq "$(q "$T_TMP/k/ops.json" '[.ended,.steps,.exit_status]')" '["running",3,null]' "SIGKILL: the snapshot after the third step"
has "still running when last written (after step 3" "$(q "$T_TMP/k/ops.json" .incomplete)" "SIGKILL: marked incomplete, saying why"
eq "$(op "$T_TMP/k/ops.json" aten::addmm default .count)" 3 "SIGKILL: the ops until then"
eq "$(ls -A "$T_TMP/k")" "ops.json" "SIGKILL: no temporary file left"
run_mt 0 ops show "$T_TMP/k/ops.json"
has "ended: running" "$OUT" "mtrial ops show: the snapshot says it was running"
has "incomplete: still running when last written" "$OUT" "... and that it is incomplete"
# the default (every 30 s) still ends with one final write, not a snapshot
trace "$J" --max-steps 2 -- "$LOOP"
eq "$(q "$J" '[.ended,.incomplete]')" '["max_steps",null]' "a finished trace replaces any snapshot"

# bad usage: status 2, one line naming the problem, nothing written
usage() {
	local want=$1; shift
	rm -rf "$T_TMP/u" && mkdir "$T_TMP/u"
	(cd "$T_TMP/u" && "$PY" "$OPTRACE" "$@") >/dev/null 2>"$T_TMP/err"
	local rc=$?; ERR=$(cat "$T_TMP/err")
	eq "$rc" 2 "usage $*: exit status"
	eq "$(wc -l <"$T_TMP/err")" 1 "usage $*: one line ($ERR)"
	has "$want" "$ERR" "usage $*"
	eq "$(ls -A "$T_TMP/u")" "" "usage $*: nothing written"
}
usage "no script" -o ops.json --
usage "no script" -o ops.json
usage "nope.py: no such script" -o ops.json -- nope.py
usage "-o" -- "$LOOP"
usage "cannot write $T_TMP/u/missing/ops.json" -o "$T_TMP/u/missing/ops.json" -- "$LOOP"
usage "is a directory" -o . -- "$LOOP"
usage "--max-steps" -o ops.json --max-steps 0 -- "$LOOP"
usage "--shape-cap" -o ops.json --shape-cap x -- "$LOOP"
usage "--every: expected seconds, 0 or more, got '-1'" -o ops.json --every -1 -- "$LOOP"
usage "--every: expected seconds, 0 or more, got 'nan'" -o ops.json --every nan -- "$LOOP"
usage "unknown option '--bogus'" -o ops.json --bogus -- "$LOOP"
finish
