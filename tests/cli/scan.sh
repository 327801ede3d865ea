# mtrial scan on fixture repositories built here: the inventory agrees with
# Python's own parser, bad files are skipped with a reason, revisions, the
# work tree, bare repositories, the cache, and the trial record.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_CACHE_HOME=$T_TMP/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
PY=${PYTHON:-python3}

R=$T_TMP/repo
mkdir -p "$R/pkg" && git -C "$R" -c init.defaultBranch=main init -q
cp "$MT_SOURCE_DIR"/tests/data/scan/*.py "$R/pkg/"
git -C "$R" add -A && git -C "$R" commit -qm "corpus"
FIRST=$(git -C "$R" rev-parse HEAD)

# files that must be skipped or flagged by name
printf 'flash-attn==2.5.6\ntorch>=2.1\nbitsandbytes  # 8-bit optimizers\n' >"$R/requirements.txt"
printf '__global__ void k(float *x) { x[0] = 1; }\n' >"$R/pkg/kernel.cu"
printf 'import torch\nx = torch.ones(1)\n\x00\x01binary' >"$R/pkg/blob.py"
printf 'import torch\n# \xff\xfe not utf-8\nx = torch.ones(1)\n' >"$R/pkg/latin.py"
ln -s aliasing.py "$R/pkg/link.py"
git -C "$R" add -A
git -C "$R" update-index --add --cacheinfo "160000,$FIRST,vendor/sub"
git -C "$R" commit -qm "more"

run_mt 0 scan --repo "$R" --json --no-cache
printf '%s' "$OUT" >"$T_TMP/mt.json"
eq "$(json 'j["rev"]')" "$(git -C "$R" rev-parse HEAD)" "full commit id"
eq "$(json 'j["cache"]["hit"]')" none "--no-cache is a cold scan"

# the inventory against Python's own parser, on the same tree
mkdir "$T_TMP/tree" && git -C "$R" archive HEAD | tar -x -C "$T_TMP/tree"
"$PY" "$MT_SOURCE_DIR/bench/ast_scan.py" "$T_TMP/tree" >"$T_TMP/ast.json"
check "inventory matches Python's ast" "$PY" "$MT_SOURCE_DIR/tests/scan/compare.py" "$T_TMP/mt.json" "$T_TMP/ast.json"

# specific resolutions
has_call() { printf '%s' "$OUT" | "$PY" -c "import json,sys; j=json.load(sys.stdin); sys.exit(0 if any(c['api']=='$1' and c['file']=='$2' and c['line']==$3 for c in j['calls']) else 1)"; }
check "from torch.nn import functional as F2" has_call torch.nn.functional.relu pkg/aliasing.py 23
check "multi-line from-import" has_call torch.utils.data.Dataset pkg/aliasing.py 26
check "function-level import" has_call torch.nn.functional.softmax pkg/scopes.py 11
check "call inside an f-string" has_call torch.ones pkg/lexing.py 13
check "decorator call" has_call torch.no_grad pkg/decorators.py 5
check "module import below the function" has_call torch.zeros pkg/scopes.py 6
eq "$(json 'len([c for c in j["calls"] if c["file"]=="pkg/scopes.py" and c["line"]==21])')" 0 "a rebound local is not torch"
eq "$(json 'sorted({c["op"] for c in j["calls"] if c["api"] in ("torch.nn.Linear","torch.nn.functional.gelu")})')" "['aten::gelu', 'aten::linear']" "ops"
eq "$(json 'j["ops"]["aten::linear"]["count"] >= 2')" True "ops aggregate"
eq "$(json 'any(m["name"]=="view" and m["file"]=="pkg/aliasing.py" for m in j["methods"])')" True "tensor method recorded"

# receivers (receivers.py says on each line what is expected)
site() { json "sorted((m['name'], m.get('certain')) for m in j['$1'] if m['file']=='pkg/receivers.py' and m['line']==$2)"; }
eq "$(site methods 12)" "[('size', False)]" "a parameter hides 'import data': data.size is a method, uncertain"
eq "$(site methods 13)" "[('narrow', False)]" "the shadowed name's narrow is kept"
eq "$(site methods 14)" "[('contiguous', False), ('t', False), ('view', False)]" "what an unknown receiver's view gives stays uncertain"
for l in 21 22 24 25 26 31 41; do
	eq "$(site methods $l)" "[]" "line $l: not counted as a tensor method"
done
eq "$(site not_tensor 21)" "[('split', None)]" "a line of a file: listed as not a tensor"
eq "$(site not_tensor 26)" "[('split', None), ('split', None)]" "a word of a str in a comprehension, and the str's split"
eq "$(json "[m['receiver'] for m in j['not_tensor'] if m['file']=='pkg/receivers.py' and m['line']==41]")" "['an object of a class (a module, a tracer, an image)']" "a tracer's trace says what the receiver is"
eq "$(site methods 47)" "[('split', True), ('view', True)]" "methods on a torch call's result are certain"
eq "$(site methods 49)" "[('index_select', True)]" "an index into a tensor is a tensor"
eq "$(site methods 50)" "[('float', False)]" "a lambda's parameter hides 'import data'"
eq "$(site methods 51)" "[('half', True)]" "a comprehension over a tensor's parts"
eq "$(site methods 54)" "[('item', False)]" "a number plus a tensor: not judged a number"
eq "$(site not_tensor 58)" "[('split', None)]" "split by a str separator: a str's split, whatever returned the receiver"
eq "$(site not_tensor 59)" "[('split', None)]" "... by an f-string"
eq "$(site methods 60)" "[('split', False)]" "split by a size stays a tensor method, uncertain"
eq "$(site not_tensor 61)" "[('split', None)]" "split with no argument: a str's (a tensor's needs its sizes)"
eq "$(site not_tensor 62)" "[('split', None)]" "split(sep=...): a str's"
eq "$(site methods 61)$(site methods 62)" "[][]" "... neither counted as a tensor method"
eq "$(json 'j["totals"]["methods_certain"] + j["totals"]["methods_uncertain"] == j["totals"]["methods"] == len(j["methods"])')" True "certain and uncertain methods add up"
eq "$(json 'j["totals"]["not_tensor"] == len(j["not_tensor"]) > 0')" True "not_tensor counted apart"
# distinct ops: those of torch calls (the `ops` object) and, counted with
# them, those only tensor methods name: what the probe judges
eq "$(json 'j["totals"]["ops"] == len(j["ops"]) < j["totals"]["ops_with_methods"] == len(set(j["ops"]) | {m["op"] for m in j["methods"] if m.get("op")})')" True "distinct ops of calls, and of calls and methods"

# skipped files and their reasons
reason() { json "[s['reason'] for s in j['files_skipped'] if s['path']=='$1'][0]"; }
has "binary" "$(reason pkg/blob.py)" "binary file skipped"
has "not UTF-8" "$(reason pkg/latin.py)" "undecodable file skipped"
has "line 2" "$(reason pkg/latin.py)" "undecodable names the line"
has "symlink" "$(reason pkg/link.py)" "symlink not followed"
has "submodule" "$(reason vendor/sub)" "submodule listed, not entered"
has "cannot tokenize" "$(reason pkg/syntax_error.py)" "unlexable file listed"

# findings and dependencies
kinds=$(json 'sorted({f["kind"] for f in j["findings"]})')
for k in float64 cuda-device cuda-api cuda-amp nccl compile-args custom-extension cuda-only-package dynamic-shapes; do
	has "'$k'" "$kinds" "finding kind $k"
done
eq "$(json '[d["name"] for d in j["dependencies"] if d["cuda_only"]]')" "['flash-attn', 'bitsandbytes']" "CUDA-only packages"
eq "$(json '[f["line"] for f in j["findings"] if f["file"]=="requirements.txt"]')" "[1, 3]" "dependency findings name their lines"
eq "$(json 'any(f["file"]=="pkg/kernel.cu" for f in j["findings"])')" True ".cu file flagged by name"

# text output in the manner of hipify --examine
run_mt 0 scan --repo "$R" --no-cache
has "[mtrial scan] file 'pkg/aliasing.py'" "$OUT" "per-file statistics"
has "[mtrial scan] TOTAL statistics" "$OUT" "total statistics"
has "certain" "$OUT" "text output counts certain and uncertain methods"
has "called on what is not a tensor" "$OUT" "text output counts the calls not on a tensor"
has "(not recorded: no trial found" "$OUT" "scan works without a trial"

# revisions
run_mt 0 scan --repo "$R" --rev "$FIRST" --json --no-cache
eq "$(json 'len(j["dependencies"])')" 0 "older revision has no requirements"
run_mt 0 scan --repo "$R" --rev main~1 --json --no-cache
eq "$(json 'j["rev"]')" "$FIRST" "rev expressions"
run_mt 2 scan --repo "$R" --rev nope; has "nope" "$ERR" "unknown revision named"
mkdir "$T_TMP/plain"
run_mt 2 scan --repo "$T_TMP/plain"; has "not a git repository" "$ERR" "non-git directory"

# the work tree
printf 'import torch\nz = torch.sigmoid(torch.ones(1))\n' >"$R/pkg/new.py"
run_mt 0 scan --repo "$R" --json --no-cache
eq "$(json 'any(c["file"]=="pkg/new.py" for c in j["calls"])')" False "untracked file not in HEAD"
run_mt 0 scan --repo "$R/pkg" --worktree --json --no-cache
eq "$(json 'any(c["api"]=="torch.sigmoid" and c["file"]=="pkg/new.py" for c in j["calls"])')" True "--worktree adds it (from a subdirectory)"
rm "$R/pkg/new.py"

# bare repository
git clone -q --bare "$R" "$T_TMP/bare.git"
run_mt 0 scan --repo "$T_TMP/bare.git" --json --no-cache
eq "$(json 'j["totals"]["calls"]')" "$(python3 -c 'import json; print(json.load(open("'"$T_TMP/mt.json"'"))["totals"]["calls"])')" "bare repository gives the same inventory"

# the cache: a rescan reads no blob; a one-file change reads one
run_mt 0 scan --repo "$R" --json
run_mt 0 scan --repo "$R" --json
eq "$(json 'j["cache"]["hit"]')" tree "rescan served from the tree cache"
eq "$(json 'j["cache"]["blobs_read"]')" 0 "rescan reads no blob"
printf '\nw = torch.tanh(x)\n' >>"$R/pkg/crlf.py"
git -C "$R" commit -qam "one change"
run_mt 0 scan --repo "$R" --json
eq "$(json 'j["cache"]["hit"]')" blobs "changed tree uses the blob cache"
eq "$(json 'j["cache"]["blobs_read"]')" 1 "only the changed file is read"
eq "$(json 'any(c["api"]=="torch.tanh" for c in j["calls"])')" True "the change is seen"

# --path: the scan holds to folders or files; the whole-result cache keeps
# each limit apart
run_mt 0 scan --repo "$R" --json --path pkg/receivers.py --path "$R/pkg/scopes.py/"
eq "$(json 'sorted(f["path"] for f in j["files"])')" "['pkg/receivers.py', 'pkg/scopes.py']" "--path limits the files (relative, absolute, trailing slash)"
eq "$(json 'j["paths"]')" "['pkg/receivers.py', 'pkg/scopes.py']" "the result keeps the limit"
eq "$(json 'any(f["file"]=="requirements.txt" for f in j["findings"])')" False "findings outside the limit are left out"
run_mt 0 scan --repo "$R" --json --path pkg/receivers.py --path pkg/scopes.py
eq "$(json 'j["cache"]["hit"]')" tree "the same limit again: served from the tree cache"
run_mt 0 scan --repo "$R" --json --path pkg/aliasing.py
eq "$(json 'sorted(f["path"] for f in j["files"])')" "['pkg/aliasing.py']" "another limit is not served the first one's result"
run_mt 0 scan --repo "$R" --json
eq "$(json '"paths" in j')" False "no limit: the whole repository, not a limited result from the cache"
eq "$(json 'j["files_scanned"] > 3')" True "no limit scans every file"
run_mt 0 scan --repo "$R" --json --path pkg --path no/such/dir
has "warning: --path 'no/such/dir': nothing there at" "$ERR" "a path with nothing at the revision is named"
eq "$(json 'j["paths_missing"]')" "['no/such/dir']" "and listed in the result"
run_mt 0 scan --repo "$R" --path pkg
has "limited to: pkg" "$OUT" "text output says the scan was limited"
run_mt 2 scan --repo "$R" --path ../elsewhere
has "leaves the repository" "$ERR" "a path outside the repository is a usage error"

# recorded in the trial, shown in the report
cd "$R"
run_mt 0 init --name scan-test
run_mt 0 scan --json
eq "$(json 'j["scan_id"]')" 1 "recorded as scan 1"
run_mt 0 report
has "## Op inventory" "$OUT" "report has the inventory section"
has "aten::linear" "$OUT" "report lists top ops"

# the probe judges the scan's ops and says which are uncertain
run_mt 0 probe --json
opk() { json "[o['$2'] for o in j['ops'] if o['op']=='$1'][0]"; }
eq "$(opk aten::narrow certain)" False "an op seen only on an unknown receiver is uncertain"
eq "$(opk aten::index_select certain)" True "an op on a torch call's result is certain"
eq "$(json "[l['certain'] for o in j['ops'] if o['op']=='aten::narrow' for l in o['locations']]")" "[False]" "its site is labelled uncertain"
eq "$(json 'j["summary"]["uncertain"] == sum(1 for o in j["ops"] if not o["certain"]) > 0')" True "the probe's summary counts the uncertain ops"
run_mt 0 probe
has "(uncertain)" "$OUT" "probe text marks uncertain ops"

# trial.yaml scan.paths: the scan and so the probe hold to it
sed -i 's|^  paths:$|  paths: [pkg/receivers.py, gone]|' "$R/.mtrial/trial.yaml"
run_mt 0 scan --json
eq "$(json 'sorted(f["path"] for f in j["files"])')" "['pkg/receivers.py']" "scan.paths limits the scan"
has "warning: trial.yaml scan.paths 'gone': nothing there" "$ERR" "a scan.paths entry with nothing there is named"
run_mt 0 probe --json
eq "$(json 'j["from"]["paths"]')" "['pkg/receivers.py', 'gone']" "the probe says which paths its scan held to"
eq "$(json 'sorted({l["file"] for o in j["ops"] for l in o["locations"]})')" "['pkg/receivers.py']" "the probe judges only their ops"
run_mt 0 probe
has "Ops from a scan limited to: pkg/receivers.py, gone" "$OUT" "probe text says so"
run_mt 0 scan --json --path .
eq "$(json '"paths" in j')" False "--path . scans the whole repository despite scan.paths"
# a trial kept outside its repository: `scan` reads the trial's repository,
# wherever it runs, and one that is gone is named as trial.yaml's
O=$T_TMP/outside
mkdir -p "$O" && new_repo "$T_TMP/other"
run_mt 0 init --repo "$T_TMP/other" --trial "$O/.mtrial"
run_mt 0 scan --trial "$O/.mtrial" --json
eq "$(json 'j["repo"], j["totals"]["calls"]')" "$T_TMP/other 0" \
	"scan without --repo reads the trial's repository"
# ... at trial.yaml's workload.revision (the baseline's code), not at
# whatever the repository's HEAD has moved on to; --rev HEAD scans that
BASE=$(git -C "$T_TMP/other" rev-parse HEAD)
printf 'import torch\nx = torch.zeros(2).cumsum(0)\n' >"$T_TMP/other/later.py"
git -C "$T_TMP/other" add later.py && git -C "$T_TMP/other" commit -qm later
run_mt 0 scan --trial "$O/.mtrial" --json
eq "$(json 'j["rev"], j["requested_rev"]')" "$BASE $BASE" "scan reads workload.revision"
run_mt 0 scan --trial "$O/.mtrial"
has "The revision is trial.yaml's workload.revision" "$OUT" "and says so"
run_mt 0 scan --trial "$O/.mtrial" --rev HEAD --json
eq "$(json 'j["rev"], j["totals"]["calls"] > 0')" "$(git -C "$T_TMP/other" rev-parse HEAD) True" "--rev HEAD scans the newer commit"
sed -i "s/^  revision: .*/  revision: \"0123abc\"/" "$O/.mtrial/trial.yaml"
run_mt 2 scan --trial "$O/.mtrial"
has "trial.yaml workload.revision 0123abc" "$ERR" "a revision the repository lacks is named as trial.yaml's"
sed -i "s/^  revision: .*/  revision: \"$BASE\"/" "$O/.mtrial/trial.yaml"
mv "$T_TMP/other" "$T_TMP/moved"
run_mt 2 scan --trial "$O/.mtrial"
has "trial.yaml workload.repository" "$ERR" "a trial's repository that is gone: named as trial.yaml's"
# a git dir without core.bare and not named .git (how a mirror or a
# hand-made copy comes): git takes it as bare, and so does init, not its
# parent directory for a work tree
M=$T_TMP/mirror && mkdir -p "$M"
git clone -q --bare "$R" "$M/repo" && git --git-dir="$M/repo" config --unset core.bare
run_mt 0 init --repo "$M/repo" --trial "$M/t/.mtrial"
has "repository: \"$M/repo\"" "$(cat "$M/t/.mtrial/trial.yaml")" "init records the mirror's git dir"
run_mt 0 scan --trial "$M/t/.mtrial" --json
eq "$(json 'j["repo"], j["rev"]')" "$M/repo $(git -C "$R" rev-parse HEAD)" "and scan reads it"

printf 'scan: [\n' >>"$R/.mtrial/trial.yaml"
run_mt 2 scan
has "trial.yaml:" "$ERR" "a trial.yaml that does not load stops the scan, named (its limit is unknown)"
finish
