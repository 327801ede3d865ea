# mtrial tracks: a repository built here with a CUDA baseline on main and two
# track branches; every changed line classified platform-specific or generic
# by tables/platform_changes.yaml, every file model or harness by its path;
# the effort of each track against the budget; missing and bad revisions.
. "$MT_SOURCE_DIR/tests/lib.sh"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
R=$T_TMP/repo
mkdir -p "$R" && cd "$R" && git -c init.defaultBranch=main init -q
cat >model.py <<'PY'
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)
PY
cat >train.py <<'PY'
import torch
device = "cuda"
scaler = torch.cuda.amp.GradScaler()
for step in range(10):
    print(step)
PY
printf 'torch\nflash-attn\n' >requirements.txt
git add -A && git commit -qm baseline
git checkout -qb port
# train.py: 3 platform lines replaced (6 changed lines), 1 generic line added
cat >train.py <<'PY'
import torch
import torch_neuronx
device = "neuron"
for step in range(10):
    print(step)
print("done")
PY
printf 'torch\n' >requirements.txt        # 1 platform line removed (flash-attn)
git add -A && git commit -qm port
git checkout -qb fast
cat >>model.py <<'PY'
def bucket(n):
    return (n + 127) // 128 * 128
PY
git add -A && git commit -qm buckets
git checkout -q main

run_mt 0 init --name tracks-test
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: tracks-test
tracks:
  portability: {base: main, head: port, description: "minimal port"}
  optimized: {base: main, head: fast, budget_hours: 10}
YAML
run_mt 0 effort add --duration 2h --track portability --category setup "device strings"
run_mt 0 effort add --duration 5h --track optimized --category optimization buckets
run_mt 0 tracks --json
eq "$(json '[t["name"] for t in j]')" "['portability', 'optimized']" "both tracks"
eq "$(json 'j[0]["changes"]["head"] == "'"$(git rev-parse port)"'"')" True "head resolved to its commit"
eq "$(json '{f["path"]: (f["kind"], f["added"], f["deleted"], f["platform"], f["generic"]) for f in j[0]["changes"]["files"]}')" \
	"{'requirements.txt': ('harness', 0, 1, 1, 0), 'train.py': ('harness', 3, 2, 4, 1)}" \
	"per file: kind, lines, platform and generic"
eq "$(json 'j[0]["changes"]["totals"]["by_rule"]')" \
	"{'cuda-package': 1, 'cuda-device': 2, 'neuron-device': 2}" "lines by rule (the first rule that matches: torch.cuda.amp is cuda-device)"
eq "$(json '[(e["rule"], e["file"], e["line"]) for e in j[0]["changes"]["examples"] if e["rule"] == "neuron-device"]')" \
	"[('neuron-device', 'train.py', 2), ('neuron-device', 'train.py', 3)]" "examples with file and line"
eq "$(json '{f["path"]: f["kind"] for f in j[1]["changes"]["files"]}["model.py"]')" model "model code by path"
eq "$(json 'j[1]["changes"]["totals"]["generic"] >= 3')" True "the buckets are generic"
eq "$(json 'j[0]["effort"]["total_ms"], j[1]["effort"]["total_ms"]')" "7200000 18000000" "effort per track"
eq "$(json 'j[1]["budget_hours"], j[1]["budget_used"]')" "10.0 0.5" "budget used"
run_mt 0 tracks
has "portability track: main..port" "$OUT" "text: the track"
has "2 files, +3 -3 lines: 5 platform-specific, 1 generic" "$OUT" "text: the totals"
has "effort: 5.0 h of a 10.0 h budget (50%)" "$OUT" "text: the budget"
run_mt 0 report
has "- portability track (\`main\`..\`port\`): 2 files, +3 -3 lines, 5 of them" "$OUT" "report: the track's changes"

# a revision that does not exist: said, exit 2; a track without revisions: unknown
sed -i 's/head: fast/head: nosuch/' .mtrial/trial.yaml
run_mt 2 tracks
has "optimized track: revision 'nosuch' not found" "$ERR" "a missing revision named"
has "portability track: main..port" "$OUT" "the other track still shown"
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: tracks-test
YAML
run_mt 0 tracks --json
eq "$(json '[t["changes"] for t in j]')" "[None, None]" "no revisions: no changes claimed"
has "tracks.<name>.base and .head" "$OUT" "says what is missing"
finish
