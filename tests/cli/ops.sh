# mtrial ops and probe --from: TorchScript archives made here by Debian's
# python3-torch (nested modules, a branch, a loop, an exported method, a
# traced model), a dispatch trace of a real training loop by optrace.py,
# what each inventory holds, their recording in the trial, the differences
# from the static scan, libtorch's registry, and every kind of bad file.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
require_torch

# The model source lives in the repository the trial scans, so that the
# archive's source lines point into it.
R=$T_TMP/repo
M=$T_TMP/models
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
cp "$MT_SOURCE_DIR/tests/data/torchscript/make_models.py" "$R/model.py"
cp "$MT_SOURCE_DIR/tests/trace/train_loop.py" "$MT_SOURCE_DIR/tests/trace/tiny_model.py" "$R/"
git -C "$R" add -A && git -C "$R" commit -qm init
(cd "$R" && "$PY" model.py "$M") || bad "making the TorchScript archives"

# --- a scripted model: without a trial --------------------------------------------
run_mt 0 ops show "$M/net.pt" --json
has "code that libtorch compiles" "$ERR" "the user is told archives are code-like"
eq "$(json 'j["source"]')" torchscript "source"
eq "$(json 'j["torchscript"]["methods"]')" "['forward', 'embed']" "every method of the root"
eq "$(json 'j["torchscript"]["control_flow"]')" 2 "the loop and the branch"
eq "$(json '{k: v["count"] for k, v in j["ops"].items()}')" \
	"{'aten::gelu': 2, 'aten::layer_norm': 2, 'aten::linear': 3, 'aten::relu': 1, 'aten::softmax': 1, 'aten::to': 2}" \
	"the ops of both methods with the two blocks inlined, and no scalar arithmetic"
eq "$(json '{k: v["conditional"] for k, v in j["ops"].items()}')" \
	"{'aten::gelu': 0, 'aten::layer_norm': 0, 'aten::linear': 0, 'aten::relu': 1, 'aten::softmax': 0, 'aten::to': 1}" \
	"the op in the loop and the one in the branch are conditional"
has "counted apart as conditional" "$(json 'j["torchscript"]["note"]')" "JSON says what the counts are"
eq "$(json 'sorted(j["torchscript"]["scalar"])')" "['aten::add.int', 'aten::gt.int', 'aten::lt.int']" \
	"loop counters are interpreter arithmetic, kept apart"
eq "$(json 'j["ops"]["aten::to"]["dtype_args"]')" "['float32', 'float64']" "x.double() seen as a float64 conversion"
eq "$(json 'sorted((c["line"], c["module"]) for c in j["calls"] if c["op"]=="aten::linear")')" \
	"[(21, '0.fc'), (21, '1.fc'), (41, 'head')]" "inlined submodules point to the model's own lines"
eq "$(json '[(c["file"].endswith("/repo/model.py"), c["line"], c["col"]) for c in j["calls"] if c["op"]=="aten::relu"]')" \
	"[(True, 39, 17)]" "the op inside the loop, at its file, line and column"
eq "$(json '[c["line"] for c in j["calls"] if c["op"]=="aten::softmax"]')" "[45]" "the exported method's op"
run_mt 0 ops show "$M/net.pt"
has "methods forward, embed; 8 submodules inlined" "$OUT" "text header"
has "model.py:41 (head)" "$OUT" "text site with its submodule"
has "(not recorded: no trial)" "$OUT" "says nothing was recorded"


# a root method called by another (ResNet's forward -> _forward_impl) runs
# inside its caller: counted once, from the entry point
run_mt 0 ops show "$M/res.pt" --json
eq "$(json 'j["torchscript"]["methods"], j["torchscript"]["entry_points"]')" \
	"['forward', '_forward_impl'] ['forward']" "the callee is no entry point"
eq "$(json '{k: (v["count"], v["conditional"]) for k, v in j["ops"].items()}')" \
	"{'aten::conv2d': (2, 0), 'aten::relu': (1, 1)}" "two convolutions, not four; the branch's op apart"
eq "$(json 'sorted(c["module"] for c in j["calls"] if c["op"]=="aten::conv2d")')" "['conv1', 'conv2']" \
	"a call of the module's own method adds no submodule to the path"
run_mt 0 ops show "$M/res.pt"
has "(entry points forward; the others are counted inside them)" "$OUT" "text names the entry point"
has "aten::conv2d                                2" "$OUT" "text count"
has "1 conditional" "$OUT" "text marks the branch's op"
has "may never be taken" "$OUT" "text says what the counts are"

run_mt 0 ops show "$M/traced.pt" --json
eq "$(json 'j["ops"]["aten::_convolution"]["count"]')" 1 "a traced model's convolution"
eq "$(json '[c.get("file") for c in j["calls"] if c["op"]=="aten::_convolution"]')" "[None]" \
	"an op the graph knows no line of keeps its count, without a file"
eq "$(json '[c["line"] for c in j["calls"] if c["op"]=="aten::max_pool2d"]')" "[54]" "traced ops keep their lines"

run_mt 0 ops show "$M/meta.pt" --json
eq "$(json 'sorted(j["ops"])')" "['aten::item', 'aten::reshape', 'aten::sigmoid', 'aten::sum']" \
	"device ops and the value read (.item() waits for the device)"
eq "$(json 'j["torchscript"]["metadata"]')" "{'aten::dim': 1, 'aten::size': 1}" "metadata reads kept apart"
run_mt 0 ops show "$M/meta.pt"; has "2 metadata reads (aten::dim, aten::size) left out" "$OUT" "text says what was left out"

# --- bad files: a clear message naming the file, exit 2, never a crash ---------------
run_mt 2 ops show "$M/checkpoint.pt"; has "checkpoint.pt: a torch.save checkpoint" "$ERR" "torch.save zip"
has "torch.jit.script(model).save" "$ERR" "says how to export"
run_mt 2 ops show "$M/legacy.pt"; has "legacy.pt: a pickle" "$ERR" "legacy torch.save"
run_mt 2 ops show "$M/truncated.pt"; has "truncated.pt: truncated or damaged zip" "$ERR" "truncated archive"
run_mt 2 ops show "$M/impostor.pt"; has "impostor.pt: libtorch could not load it as TorchScript" "$ERR" \
	"archive entries with garbage inside: libtorch's error, no crash"
run_mt 2 ops show "$M/none.pt"; has "none.pt: no such file" "$ERR" "missing file"
# 100,000 nested parentheses overflowed libtorch's parser in mtrial's process:
# refused first, stored or deflated, naming the entry, line and depth
for z in deep deepz; do
	run_mt 2 ops show "$M/$z.pt"
	has "$z.pt: meta/code/__torch__.py:" "$ERR" "$z: the code entry named"
	has "brackets nested 100002 deep, over the limit of 200" "$ERR" "$z: the depth"
done
# constants nested 2,000,000 deep crash libtorch itself: the archive is
# loaded in a child process, so mtrial says so and exits 2, recording nothing
run_mt 2 ops show "$M/crash.pt"
has "crash.pt: libtorch crashed loading it as TorchScript (" "$ERR" "a crash in libtorch is contained (a segmentation fault; under AddressSanitizer, its abort)"
run_mt 2 ops show "$M/impostor.pt" --json
has "impostor.pt: libtorch could not load it as TorchScript" "$ERR" "libtorch's own refusal still comes through the child"
run_mt 2 ops show "$M/indented.pt"; has "indented.pt: meta/code/__torch__.py:" "$ERR" "deep blocks refused"
has "indented over 100 levels" "$ERR" "deep blocks: the limit"
run_mt 0 ops show "$M/nested150.pt" --json; eq "$(json 'sorted(j["ops"])')" \
	"['aten::item', 'aten::reshape', 'aten::sigmoid', 'aten::sum']" "150 levels, within Python's limit, load"
run_mt 2 ops show "$M" --as torchscript; has "not a regular file" "$ERR" "a directory"
: >"$T_TMP/empty.pt"; run_mt 2 ops show "$T_TMP/empty.pt" --as torchscript; has "empty file" "$ERR" "empty file"
run_mt 2 ops show "$R/model.py" --as torchscript; has "model.py: not a zip file" "$ERR" "source code as an archive"
run_mt 2 ops show "$M/net.pt" --as pickle; has "unknown inventory source 'pickle'" "$ERR" "bad --as"
run_mt 2 ops show; has "missing argument" "$ERR" "no argument"
run_mt 2 ops frobnicate; has "unknown subcommand 'frobnicate'" "$ERR" "bad subcommand"

# --- a dispatch trace of the real loop ---------------------------------------------
(cd "$R" && "$PY" "$MT_SOURCE_DIR/probes/optrace.py" -o "$T_TMP/ops.json" -- train_loop.py --steps 3) \
	>/dev/null 2>&1 || bad "optrace on the training loop"
run_mt 0 ops show "$T_TMP/ops.json" --json
eq "$(json 'j["source"]')" trace "trace source"
eq "$(json 'j["trace"]["steps"]')" 3 "optimizer steps"
eq "$(json 'j["ops"]["aten::addmm"]["count"]')" 6 "two layers x three steps"
eq "$(json 'j["ops"]["aten::addmm"]["overloads"]')" "['']" "the default overload is ''"
eq "$(json 'sorted(map(str, j["ops"]["aten::addmm"]["shapes"]))')" \
	"['[[16], [4, 8], [8, 16]]', '[[4], [4, 16], [16, 4]]']" "distinct input shapes kept"
eq "$(json 'j["ops"]["aten::mse_loss_backward"]["backward_only"]')" True "backward only"
eq "$(json 'j["ops"]["aten::addmm"]["backward_only"]')" False "forward op"
eq "$(json '[k for k in j["ops"] if not k.startswith("aten::")]')" "[]" "profiler instrumentation dropped"
eq "$(json 'sum(c["count"] for c in j["calls"] if c["op"]=="aten::t")')" \
	"$(jq '[.ops[] | select(.op=="aten::t") | .count] | add' "$T_TMP/ops.json")" "dispatch counts carried to the probe"

# malformed traces name the file and the field
bad_trace() { printf '%s' "$2" >"$T_TMP/bad.json"; run_mt 2 ops show "$T_TMP/bad.json"; has "$3" "$ERR" "$1"; }
bad_trace "not JSON" '{"format": ' "bad.json:1:"
bad_trace "not a trace" '{"ops": []}' 'bad.json: not an optrace file'
bad_trace "newer version" '{"format":"mtrial-optrace","version":2,"ops":[]}' "bad.json: version: unsupported"
bad_trace "no torch" '{"format":"mtrial-optrace","version":1,"ops":[]}' "bad.json: torch: missing"
bad_trace "bad count" '{"format":"mtrial-optrace","version":1,"torch":"2.5","ops":[{"op":"aten::add","count":1},{"op":"aten::mul","count":-1}]}' \
	"bad.json: ops[1].count: expected a non-negative integer"
bad_trace "bad name" '{"format":"mtrial-optrace","version":1,"torch":"2.5","ops":[{"op":"add","count":1}]}' \
	"bad.json: ops[0]: op: expected a qualified operator name"
bad_trace "bad dtype" '{"format":"mtrial-optrace","version":1,"torch":"2.5","ops":[{"op":"aten::add","count":1,"dtypes":[3]}]}' \
	"bad.json: ops[0].dtypes[0]: expected a string"

# --- in a trial: recorded, named by kind, compared, probed ----------------------------
cd "$R"
run_mt 0 init --name ops-test
run_mt 0 scan
run_mt 2 ops show torchscript; has "no torchscript recorded yet" "$ERR" "nothing recorded yet"
run_mt 0 ops show "$M/net.pt"; has "Recorded as torchscript #1" "$OUT" "recorded"
run_mt 0 ops show "$M/net.pt"; has "Already recorded as torchscript #1" "$OUT" "an unchanged inventory is not stored twice"
run_mt 0 ops show "$T_TMP/ops.json"; has "Recorded as trace #2" "$OUT" "trace recorded"
eq "$(sqlite3 .mtrial/journal.db "select count(*) from inventories")" 2 "two inventories in the journal"
# the index names the inventory's artefact, gzip, named by its content
ref=$(sqlite3 .mtrial/journal.db "select substr(json_extract(result, '\$.object'), 8) from inventories where source='trace'")
eq "$(zcat ".mtrial/objects/sha256/${ref:0:2}/${ref:2}" | sha256sum | cut -c1-64)" "$ref" "an inventory's artefact is named by the hash of its content"
eq "$(zcat ".mtrial/objects/sha256/${ref:0:2}/${ref:2}" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["ops"]["aten::addmm"]["shapes"]))')" \
	2 "the trace's shapes are kept in the record"
run_mt 0 ops show trace --json; eq "$(json 'j["inventory_id"]')" 2 "the latest trace by name"

run_mt 0 ops diff scan torchscript --json
eq "$(json 'j["a"]["source"], j["b"]["source"]')" "scan torchscript" "sides named"
eq "$(json '"aten::linear" in j["both"] and "aten::gelu" in j["both"]')" True "ops both see"
eq "$(json 'j["missed_by_scan"]')" "[]" "the scan sees every op of the scripted model (x.double() is aten::to)"
run_mt 0 ops diff scan trace --json
eq "$(json '"aten::linear" in j["decomposed"] and j["decompositions"]["aten::linear"]')" "['aten::addmm', 'aten::t']" \
	"nn.Linear found by the scan, run as aten::t and aten::addmm"
eq "$(json '[o for o in ["aten::addmm", "aten::t"] if o in j["missed_by_scan"] + j["only_b"]]')" "[]" \
	"its decomposition is neither missed nor only in the trace"
eq "$(json 'all(o in j["backward_only"] for o in ["aten::mse_loss_backward", "aten::threshold_backward"])')" \
	True "backward ops the scan cannot see, apart"
eq "$(json '[o for o in j["backward_only"] if o in j["missed_by_scan"] + j["only_b"]]')" "[]" "and not a second time"
eq "$(json 'sorted(o for l in ("both","only_a","only_b","decomposed","explained","backward_only","missed_by_scan") for o in j[l]) == sorted(j["counts"])')" \
	True "each op in exactly one list"
eq "$(json 'j["counts"]["aten::addmm"]')" "[0, 6]" "counts of each side"
run_mt 0 ops diff scan trace
has "aten::linear                             -> aten::addmm, aten::t" "$OUT" "text: the composite and its decomposition"
has "Seen only in backward" "$OUT" "text: backward-only ops"
hasnt "Only in B" "$OUT" "text: the trace's ops are not listed a second time"
run_mt 2 ops diff scan; has "missing argument" "$ERR" "diff needs two"

run_mt 0 probe --from torchscript --table torch-neuronx-training --json
eq "$(json 'j["from"]["source"], j["from"]["inventory_id"]')" "torchscript 1" "probe of the latest archive"
eq "$(json 'sum(o["count"] for o in j["ops"])')" 11 "every node counted"
eq "$(json '[o["locations"][0]["line"] for o in j["ops"] if o["op"]=="aten::relu"]')" "[39]" "locations from the graph"
run_mt 0 probe --from trace "$T_TMP/ops.json" --json
eq "$(json 'j["from"]["source"]')" trace "probe of a trace file"
eq "$(json '[o["count"] for o in j["ops"] if o["op"]=="aten::addmm"]')" "[6]" "dispatch counts in the probe"
eq "$(sqlite3 .mtrial/journal.db "select count(*) from probes")" 2 "probes recorded"
run_mt 2 probe --from torchscript "$M/checkpoint.pt"; has "torch.save checkpoint" "$ERR" "probe of a bad file"
run_mt 2 probe --from trace --repo "$R"; has "--repo and --rev choose a scan" "$ERR" "--repo with an exact source"
run_mt 2 probe --from graph; has "expected scan, torchscript or trace" "$ERR" "bad --from"
eq "$(sqlite3 .mtrial/journal.db "select count(*) from inventories")" 2 "bad input recorded nothing"

run_mt 0 report
has "TorchScript graphs #1 of" "$OUT" "report: the archive"
has "Dispatch trace #2 of" "$OUT" "report: the trace"
has "seen only in backward:" "$OUT" "report: backward-only ops"
has '`aten::mse_loss_backward`' "$OUT" "report lists the backward op"
has "of the trace ops of" "$OUT" "report: the probe names its source"
has "distinct input shapes" "$OUT" "report: ops whose shapes varied"

# --- libtorch's registry --------------------------------------------------------------
run_mt 0 ops registry aten::linear --json
eq "$(json '[(e["overload"], [a["name"] for a in e["arguments"]]) for e in j]')" \
	"[('', ['input', 'weight', 'bias']), ('out', ['input', 'weight', 'bias', 'out'])]" "schemas of one op"
run_mt 0 ops registry --json
N=$(json 'len(j)')
run_mt 0 doctor --json
eq "$(json '[l["operators"] for l in j["libraries"] if l["name"] == "libtorch"][0]')" "$N" \
	"the registry is every registered operator"
run_mt 0 ops registry 'aten::linear*'; has "aten::linear_backward(" "$OUT" "prefix match"

# --- the tracer the binary carries ----------------------------------------------------
run_mt 0 ops tracer -o "$T_TMP/optrace.py"
check "tracer written as in the source" cmp -s "$T_TMP/optrace.py" "$MT_SOURCE_DIR/probes/optrace.py"
finish
