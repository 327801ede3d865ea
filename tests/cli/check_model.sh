# mtrial check model: a TorchScript model made here by Debian's
# python3-torch, run on the CPU in each recipe; the greatest differences
# must be the ones torch itself computes for the same runs
# (tests/data/recipe/make.py), a recipe the CPU cannot run is a clear
# error, and results are recorded in the trial.
. "$MT_SOURCE_DIR/tests/lib.sh"
require_torch
D=$T_TMP/recipe
"$PY" "$MT_SOURCE_DIR/tests/data/recipe/make.py" "$D" || bad "making the model"

# same_as RECIPE: each output's greatest |diff| agrees with torch's (the
# same libtorch; reductions may split differently across threads)
same_as() {
	printf '%s' "$OUT" | python3 -c '
import json, sys
got = json.load(sys.stdin)
want = json.load(open(sys.argv[1]))[sys.argv[2]]["max_abs"]
by_name = {t["name"]: t for t in got["tensors"]}
for i, w in enumerate(want):
    g = float(by_name[str(i)]["min_atol"])
    assert abs(g - w) <= 1e-6 * max(abs(w), 1e-30) + 1e-12, (i, g, w)
' "$D/expected.json" "$1"
}

for r in fp32 bf16 f64-as-f32; do
	status=0
	[ "$r" = bf16 ] && status=1 # bfloat16 misses float32's default tolerance
	run_mt $status check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe $r --json
	check "$r: greatest differences as torch computes them" same_as $r
	eq "$(json 'j["recipe"]["name"], len(j["tensors"])')" "$r 2" "$r: both outputs compared"
done
eq "$(json 'j["reference"].endswith("in float64"), j["candidate"].endswith("in float32")')" "True True" \
	"f64-as-f32 runs the reference in float64"
run_mt 0 check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe fp32 --json
eq "$(json 'j["passed"], [t["mismatched"] for t in j["tensors"]]')" "True [0, 0]" \
	"fp32 twice: this CPU is deterministic for the model"
run_mt 0 check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe bf16 --rtol 0.1 --atol 0.01 --json
eq "$(json 'j["passed"], j["tensors"][0]["tolerance_source"]')" "True --rtol/--atol" \
	"bf16 within the team's chosen tolerance"
run_mt 1 check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe bf16
has "Greatest absolute difference" "$OUT" "text in assert_close's words"
has "code that libtorch compiles" "$ERR" "the model file is named as code-like"

# a recipe this CPU has no kernels for, and bad input
if [ "$(python3 -c 'import json,sys; print("error" in json.load(open(sys.argv[1]))["fp16"])' "$D/expected.json")" = True ]; then
	run_mt 2 check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe fp16
	has "running forward in float16 failed" "$ERR" "fp16 on a CPU without half kernels"
	has "not implemented for 'Half'" "$ERR" "libtorch's reason, not its traceback"
fi
run_mt 2 check model "$D/mlp.pt" --recipe bf16; has "--inputs FILE is required" "$ERR" "no inputs"
run_mt 2 check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe int8; has "expected fp32, bf16" "$ERR" "bad recipe"
run_mt 2 check model "$D/inputs.pt" --inputs "$D/inputs.pt"; has "torch.save checkpoint" "$ERR" "inputs given as the model"
run_mt 2 check model "$D/mlp.pt" --inputs "$D/mlp.pt"; has "a TorchScript archive, not a torch.save file" "$ERR" "model given as inputs"
"$PY" -c 'import torch; torch.save([torch.randn(8, 3)], "'"$T_TMP/wrong.pt"'")'
run_mt 2 check model "$D/mlp.pt" --inputs "$T_TMP/wrong.pt"; has "running forward in float32 failed" "$ERR" "inputs of the wrong shape"

# recorded in a trial
R=$T_TMP/repo
new_repo "$R"
cd "$R" && run_mt 0 init --name model-test
run_mt 1 check model "$D/mlp.pt" --inputs "$D/inputs.pt" --recipe bf16
has "Recorded as check #1" "$OUT" "recorded"
eq "$(sqlite3 .mtrial/journal.db "select kind, passed from checks")" "model|0" "the journal has it"
run_mt 0 check list; has "model    FAIL" "$OUT" "check list"
run_mt 0 report; has "recipe bf16" "$OUT" "report: the recipe"
has "**FAIL** model #1" "$OUT" "report: the verdict"

# --- what --inputs holds, each kind the help names, and what is said to run --
I=$T_TMP/inputs
mkdir -p "$I"
cat >"$I/make.py" <<'PY' # a file: torch.jit.script reads the class's source
import sys, torch
from typing import Dict
d, out = sys.argv[1], sys.argv[2]
x, y = torch.load(d + "/inputs.pt")
torch.save(x, out + "/tensor.pt")
torch.save((x, y), out + "/tuple.pt")
torch.save({"y": x, "x": y}, out + "/dict.pt")  # key order: x (= y) first
torch.save([x, 3, y], out + "/gap.pt")
class TakesDict(torch.nn.Module):
    def forward(self, batch: Dict[str, torch.Tensor]):
        return batch["x"] + batch["y"]
torch.jit.script(TakesDict()).save(out + "/takes_dict.pt")
PY
"$PY" "$I/make.py" "$D" "$I" || bad "making the inputs"
run_mt 0 check model "$D/mlp.pt" --inputs "$I/tuple.pt" --recipe fp32 --json
eq "$(json '[a["name"] for a in j["ran"]["arguments"]], j["ran"]["dtypes"]')" "['0', '1'] ['float32', 'float32']" \
	"a tuple: its items in order, in --json's ran"
run_mt 0 check model "$D/mlp.pt" --inputs "$I/dict.pt" --recipe fp32 --json
eq "$(json '[(a["name"], a["shape"]) for a in j["ran"]["arguments"]]')" "[('x', [8, 16]), ('y', [8, 16])]" \
	"a dict: its values in key order"
run_mt 1 check model "$D/mlp.pt" --inputs "$I/dict.pt" --recipe bf16
has "note: running $D/mlp.pt's forward twice on this CPU (recipe bf16: float32, then bfloat16), on the tensors of $I/dict.pt passed positionally: x float32 [8, 16], y float32 [8, 16]" \
	"$ERR" "the note says which method, on what, in which recipe"
hasnt "runs no method" "$ERR" "not the notice of the commands that run nothing"
run_mt 2 check model "$D/mlp.pt" --inputs "$I/tensor.pt" --recipe fp32
has "forward() is missing value for argument 'y'" "$ERR" "a lone tensor: one argument, libtorch says which is missing"
has "(check model passed forward, positionally: tensor float32 [8, 16])" "$ERR" "the error says what was passed"
run_mt 2 check model "$D/mlp.pt" --inputs "$I/gap.pt" --recipe fp32
has "$I/gap.pt: item 1 of the list is not a tensor" "$ERR" "a list with a non-tensor item is refused, not shifted"
run_mt 2 check model "$I/takes_dict.pt" --inputs "$I/dict.pt" --recipe fp32
has "Expected at most 2 argument(s)" "$ERR" "a forward taking a dict: libtorch's reason"
"$PY" -c 'import torch; x = torch.ones(2, 16); torch.save({"x": x}, "'"$I/dict1.pt"'")'
run_mt 2 check model "$I/takes_dict.pt" --inputs "$I/dict1.pt" --recipe fp32
has "Expected a value of type 'Dict[str, Tensor]' for argument 'batch' but instead found type 'Tensor'" "$ERR" \
	"the whole reason, not only its last line"
has "Declaration: forward(" "$ERR" "the declaration kept"
hasnt "Value: tensor" "$ERR" "the argument's printed value left out"
check "one line" test "$(printf '%s\n' "$ERR" | grep -c .)" -le 3
"$PY" -c 'import os, sys, torch; x, y = torch.load(sys.argv[1]); torch.save([x, y, os.getcwd], sys.argv[2])' \
	"$D/inputs.pt" "$I/names.pt"
run_mt 0 check model "$D/mlp.pt" --inputs "$I/names.pt" --recipe fp32 --json
eq "$(json '[g["name"] for g in j["pickle_globals"]], len(j["ran"]["arguments"])')" "['posix.getcwd'] 2" \
	"inputs whose pickle names a function: warned, the tensors passed"
run_mt 0 check model --help
has "--inputs FILE holds forward's arguments" "$OUT" "--help says what --inputs holds"
has "of a dict of tensors" "$OUT" "--help names dicts"

finish
