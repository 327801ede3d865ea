# mtrial ops show scan: the trial's latest scan as an inventory, each op with
# its call sites; a call no aten op maps (torch.device) is
# left out of every op's sites, not compared with the op's name (which
# crashed on its null op).
. "$MT_SOURCE_DIR/tests/lib.sh"
R=$T_TMP/repo
new_repo "$R"
cat >"$R/train.py" <<'PY'
import torch
x = torch.tensor([1.0, 2.0])
y = torch.relu(torch.randn(3))
dev = torch.device("cpu")
PY
git -C "$R" add train.py && git -C "$R" -c user.name=t -c user.email=t@example.com commit -qm calls
cd "$R"
run_mt 0 init --name ops-show-scan
run_mt 0 scan --json
eq "$(json 'sum(1 for c in j["calls"] if c["op"] is None) > 0')" True "the scan has calls no op maps"
eq "$(json '[c["op"] for c in j["calls"] if c["api"] == "torch.tensor"]')" "['aten::lift_fresh']" \
	"torch.tensor is probed as the op it dispatches"
run_mt 0 ops show scan
has "Scan of $R at" "$OUT" "what the inventory is"
has "aten::relu" "$OUT" "a mapped op"
has "train.py:3" "$OUT" "its call site"
has "ops." "$OUT" "the count of ops"
finish
