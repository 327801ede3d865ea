# mtrial probe and tables: a fixture repository probed against the bundled
# tables and a table of the test's own; overrides from trial.yaml and the
# journal; what each status's source says; exit codes.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
cat >"$R/train.py" <<'PY'
import torch
import torch.nn as nn
emb = nn.Embedding(10, 4)
x = torch.add(torch.ones(3), 1)
y = torch.where(x > 1, x, x)
z = x.view(3)
PY
git -C "$R" add -A && git -C "$R" commit -qm init

run_mt 0 tables list
for t in torch-neuronx-training torch-neuron-inf1 torchneuron-2.14; do has "$t" "$OUT" "bundled table $t"; done
run_mt 0 tables show torch-neuronx-training --json
eq "$(json 'len(j["entries"])')" 41 "41 training ops"
run_mt 2 tables show nope; has "no compatibility table named 'nope'" "$ERR" "unknown table"

# without a trial: --repo, against each bundled table
run_mt 1 probe --repo "$R" --table torch-neuron-inf1 --json
eq "$(json '[o["op"] for o in j["ops"] if o["status"]=="unsupported"]')" "['aten::embedding']" "embedding is unsupported on Inf1"
eq "$(json '[o["source"] for o in j["ops"] if o["op"]=="aten::embedding"][0].startswith("table:torch-neuron-inf1:")')" True "source names the table and line"
eq "$(json '[o["locations"][0]["line"] for o in j["ops"] if o["op"]=="aten::embedding"][0]')" 3 "call site of the blocker"
eq "$(json '[o["status"] for o in j["ops"] if o["op"]=="aten::where"][0]')" partial "where is partial on Inf1"
eq "$(json 'j["table"]["retrieved"]')" 2026-08-21 "table identity in the result"
run_mt 0 probe --repo "$R" --table torchneuron-2.14 --json
eq "$(json 'sorted({o["status"] for o in j["ops"]})')" "['unknown']" "TorchNeuron: no per-op claim, every op unknown"
eq "$(json 'len(j["rules"]) >= 8')" True "TorchNeuron rules reported"
run_mt 1 probe --repo "$R" --table torch-neuron-inf1
has "Unsupported (every one, with its call sites)" "$OUT" "text lists blockers"
has "train.py:3" "$OUT" "text shows the call site"
has "unsupported" "$OUT" "one-line verdict"
run_mt 2 probe --repo "$R" --table nope
run_mt 2 probe --repo "$R" --from trace; has "--repo and --rev choose a scan, not a trace" "$ERR" "--from with --repo"

# analyze output from real hardware outranks every table
cat >"$T_TMP/analyze.json" <<'JSON'
{"torch_neuronx_version": "2.14.3.0", "neuronx_cc_version": "2.21.0",
 "support_percentage": "50.00%",
 "supported_operators": {"aten::embedding": 2},
 "unsupported_operators": [{"kind": "aten::where", "failureAt": "neuronx-cc",
   "call": "train.py(5): where", "opGraph": ""}]}
JSON
run_mt 1 probe --repo "$R" --table torch-neuron-inf1 --observed "$T_TMP/analyze.json" --json
eq "$(json '[(o["status"], o["source"].split(":")[0]) for o in j["ops"] if o["op"]=="aten::embedding"][0]')" "('device', 'observed')" "observed beats the table"
eq "$(json '[o["status"] for o in j["ops"] if o["op"]=="aten::where"][0]')" unsupported "observed failure"
run_mt 2 probe --repo "$R" --observed torch-neuron-inf1; has "not observed on hardware" "$ERR" "a documented table is not an observation"

# a table of our own, from a file
cat >"$T_TMP/mine.yaml" <<'YAML'
schema: mtrial-compat/1
name: mine
backend: test
version: "1"
kind: documented
source: {url: "https://example.com/mine"}
retrieved: 2026-11-01
ops:
  aten::add:
    status: cpu_fallback
  aten::ones:
    status: device
YAML
run_mt 0 probe --repo "$R" --table "$T_TMP/mine.yaml" --json
eq "$(json '[o["status"] for o in j["ops"] if o["op"]=="aten::add"][0]')" cpu_fallback "a table from a file"
printf 'schema: mtrial-compat/1\nname: bad\n  oops: [\n' >"$T_TMP/bad.yaml"
run_mt 2 probe --repo "$R" --table "$T_TMP/bad.yaml"; has "bad.yaml:" "$ERR" "malformed table names the file"

# in a trial: the latest scan is the inventory; overrides outrank the table
cd "$R"
run_mt 0 init --name probe-test
run_mt 0 scan
cat >"$R/.mtrial/trial.yaml" <<'YAML'
schema: 1
name: probe-test
probe:
  table: torch-neuron-inf1
  overrides:
    - op: aten::where
      status: device
      note: "checked on 2.14.3"
YAML
run_mt 0 spec
run_mt 1 probe --json
eq "$(json '[o["source"] for o in j["ops"] if o["op"]=="aten::where"][0]')" "override:trial.yaml#1" "trial.yaml override"
eq "$(json 'j["probe_id"]')" 1 "recorded"
run_mt 0 override aten::embedding device --note "works in eager on 2.14.3"
run_mt 2 override aten::embedding sometimes --note x; has "unknown status 'sometimes'" "$ERR" "bad override status"
run_mt 2 override aten::embedding device; has "needs a note" "$ERR" "override without a note"
run_mt 0 probe --json
eq "$(json '[o["source"] for o in j["ops"] if o["op"]=="aten::embedding"][0]')" "override:journal#1" "journal override"
eq "$(json 'j["summary"]["unsupported"]')" 0 "no blocker left"
run_mt 0 override --json; eq "$(json 'j[0]["op"]')" aten::embedding "overrides listed"
run_mt 0 report
has "## Compatibility" "$OUT" "report section"
has "torch-neuron-inf1" "$OUT" "report names the table"
has "retrieved 2026-08-21" "$OUT" "report names the table's date"
finish
