# mtrial tracks: a repository built here with a CUDA baseline on main and two
# track branches; every changed line classified platform-specific or generic
# by tables/platform_changes.yaml, every file model or harness by its path;
# the effort of each track against the budget; files marked reusable or
# model-specific (and what cannot be marked); missing and bad revisions.
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

# marks: reusable or model-specific, per file of a track's diff
run_mt 0 tracks mark --track portability train.py --reusable --note "any model needs the device"
has "train.py (portability track) marked reusable: any model needs the device" "$OUT" "mark said"
run_mt 0 tracks mark requirements.txt --model-specific --track portability --json
eq "$(json 'j["track"], j["mark"], j["note"]')" "portability model-specific None" "mark --json"
run_mt 0 tracks mark model.py --model-specific
has "model.py (optimized track) marked model-specific" "$OUT" "no --track: the one track that changed it"
run_mt 0 tracks --json
eq "$(json '{f["path"]: (f["mark"], f["mark_note"]) for f in j[0]["changes"]["files"]}')" \
	"{'requirements.txt': ('model-specific', None), 'train.py': ('reusable', 'any model needs the device')}" \
	"each file's mark and note"
eq "$(json 'j[0]["changes"]["totals"]["by_mark"]')" \
	"{'reusable': 5, 'model-specific': 1, 'unmarked': 0}" "lines by mark (added plus deleted)"
eq "$(json 'sorted(j[1]["changes"]["totals"]["by_mark"].items())')" \
	"[('model-specific', 2), ('reusable', 0), ('unmarked', 6)]" "the other track's marks are its own"
eq "$(json '[f["line"] for f in j[0]["changes"]["files"][1]["platform_lines"]]')" "[2, 3, 2, 3]" \
	"a file's platform-specific lines with their numbers"
eq "$(json '[(f["sign"], f["rule"], f["text"]) for f in j[0]["changes"]["files"][1]["platform_lines"]][:2]')" \
	"[('-', 'cuda-device', 'device = \"cuda\"'), ('-', 'cuda-device', 'scaler = torch.cuda.amp.GradScaler()')]" \
	"... their sign, rule and text"
run_mt 0 tracks
has "train.py                                 +3 -2 (4 platform) reusable: any model needs the device" "$OUT" "text: the mark"
has "marked: 5 lines reusable, 1 model-specific, 0 unmarked" "$OUT" "text: lines by mark"
run_mt 0 tracks mark --track portability train.py --model-specific
run_mt 0 tracks --json
eq "$(json 'j[0]["changes"]["totals"]["by_mark"]["model-specific"], j[0]["changes"]["files"][1]["mark_note"]')" \
	"6 None" "a new mark replaces the old one, note too"

# what cannot be marked: said, exit 2, nothing recorded
run_mt 2 tracks mark train.py --reusable
has "train.py is changed in both tracks: say which with --track" "$ERR" "a file both tracks changed"
run_mt 2 tracks mark README.md --reusable
has "README.md is not changed in any track" "$ERR" "a path no track changed"
run_mt 2 tracks mark --track portability model.py --reusable
has "model.py is not changed in the portability track (main..port)" "$ERR" "a path the track did not change"
run_mt 2 tracks mark --track nosuch model.py --reusable
has "unknown track 'nosuch'" "$ERR" "an unknown track"
run_mt 2 tracks mark model.py --reusable --model-specific
has "one mark: --reusable or --model-specific" "$ERR" "two marks"
run_mt 2 tracks mark model.py
has "say --reusable or --model-specific" "$ERR" "no mark"
run_mt 2 tracks frob
has "unknown subcommand 'frob'" "$ERR" "an unknown subcommand"
run_mt 2 tracks mark --json README.md --reusable
eq "$(json 'j["exit"]')" 2 "--json: the error as JSON"

# unmark; a mark whose file the diff no longer has is kept and shown as stale
run_mt 0 tracks unmark requirements.txt
has "requirements.txt (portability track): mark removed" "$OUT" "unmark"
run_mt 2 tracks unmark requirements.txt
has "requirements.txt is not marked in any track" "$ERR" "unmark what is not marked"
sed -i 's/head: fast, budget/head: port, budget/' .mtrial/trial.yaml
run_mt 0 tracks --json
eq "$(json '[(m["path"], m["mark"]) for m in j[1]["stale_marks"]]')" "[('model.py', 'model-specific')]" \
	"a mark of a file no longer changed: stale"
run_mt 0 tracks
has "marked model-specific, no longer changed: model.py" "$OUT" "text: the stale mark"
run_mt 0 tracks unmark --track optimized model.py --json
eq "$(json 'j["mark"]')" None "a stale mark can be removed"
sed -i 's/head: port, budget/head: fast, budget/' .mtrial/trial.yaml

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
