# tables/decompositions.yaml (scripts/gen-decompositions): the composites a
# training trace shows most (losses, linear, matmul, norms, dropout,
# softmax) are listed with the ops they run, and `ops diff` matches a
# scan's F.cross_entropy with the aten::_log_softmax and
# aten::nll_loss_forward a dispatch trace records (the table lacked
# aten::cross_entropy_loss: every OpInfo sample of it failed under
# Python 3.11, and the generator dropped them in silence). The report names
# the trace ops decomposed from the scan's composites, and the paths a scan
# was held to.
. "$MT_SOURCE_DIR/tests/lib.sh"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

# composite -> ops it must be seen to dispatch to (each a real kernel)
missing=$(python3 - "$MT_SOURCE_DIR/tables/decompositions.yaml" <<'PY'
import re, sys
table = {}
for line in open(sys.argv[1]):
    m = re.match(r'\s+"(aten::[^"]+)": \[(.*)\]$', line)
    if m:
        table[m.group(1)] = set(re.findall(r'"(aten::[^"]+)"', m.group(2)))
want = {
    "aten::cross_entropy_loss": {"aten::_log_softmax", "aten::nll_loss_forward", "aten::nll_loss2d_forward"},
    "aten::nll_loss_nd": {"aten::nll_loss_forward", "aten::nll_loss2d_forward"},
    "aten::nll_loss": {"aten::nll_loss_forward"},
    "aten::linear": {"aten::addmm", "aten::t"},
    "aten::matmul": {"aten::mm", "aten::bmm", "aten::dot", "aten::mv"},
    "aten::layer_norm": {"aten::native_layer_norm"},
    "aten::group_norm": {"aten::native_group_norm"},
    "aten::batch_norm": {"aten::native_batch_norm"},
    "aten::dropout": {"aten::bernoulli_"},
    "aten::softmax": {"aten::_softmax"},
    "aten::log_softmax": {"aten::_log_softmax"},
    "aten::conv2d": {"aten::convolution"},
    "aten::flatten": {"aten::_reshape_alias"},
    "aten::einsum": {"aten::bmm"},
}
for op, ops in sorted(want.items()):
    if not ops <= table.get(op, set()):
        print("%s lacks %s" % (op, sorted(ops - table.get(op, set()))))
PY
)
eq "$missing" "" "common composites and what they run"

# a scan that names the composite, a trace that names what it ran
R=$T_TMP/repo
new_repo "$R"
cat >"$R/train.py" <<'PY'
import torch
import torch.nn.functional as F

logits = torch.randn(4, 5)
y = torch.randint(0, 5, (4,))
loss = F.cross_entropy(logits, y)
PY
git -C "$R" commit -qam ce
printf '%s' '{"format":"mtrial-optrace","version":1,"torch":"1.13.0","ops":[
 {"op":"aten::randn","count":1},{"op":"aten::randint","count":1},
 {"op":"aten::_log_softmax","count":1},{"op":"aten::nll_loss_forward","count":1}]}' >"$T_TMP/trace.json"
cd "$R" || exit 1
run_mt 0 init --name ce
run_mt 0 scan
run_mt 0 ops show "$T_TMP/trace.json"
run_mt 0 ops diff scan trace --json
eq "$(json 'j["decompositions"].get("aten::cross_entropy_loss")')" \
	"['aten::_log_softmax', 'aten::nll_loss_forward']" "cross_entropy_loss matched with what the trace ran"
eq "$(json '[o for o in ["aten::_log_softmax", "aten::nll_loss_forward"] if o in j["missed_by_scan"] + j["only_b"]]')" \
	"[]" "its decomposition is neither missed by the scan nor only in the trace"

# the report says which trace ops came from which composite, and which
# paths the scan held to
run_mt 0 report --format md
has '- decomposed from composites the scan names: `aten::cross_entropy_loss` -> `aten::_log_softmax` `aten::nll_loss_forward`;' \
	"$OUT" "the report: composite and its decomposition"
hasnt "held to" "$OUT" "a whole-repository scan names no paths"
run_mt 0 scan --path train.py --path nowhere
run_mt 0 report --format md
has 'held to `train.py` `nowhere` (scan --path or trial.yaml scan.paths: nothing else was scanned), of which `nowhere` held nothing;' \
	"$OUT" "the report names the scan's paths"
run_mt 0 report --format html
has '<code>aten::cross_entropy_loss</code> → <code>aten::_log_softmax</code> <code>aten::nll_loss_forward</code>;' "$OUT" "html: decomposed"
has 'held to <code>train.py</code> <code>nowhere</code>' "$OUT" "html: paths"
finish
