#!/usr/bin/env bash
# examples/create-demo builds a git repository with a CUDA baseline on main and
# the porting commits on trial/neuron, and opens a trial in it. Check the
# result with git and with the binary itself.
#
# Env (set by CTest): MTRIAL, MT_SOURCE_DIR, MT_BUILD_DIR.
set -uo pipefail

MT_SOURCE_DIR="${MT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
MTRIAL="${MTRIAL:-${MT_BUILD_DIR:-$MT_SOURCE_DIR/build}/mtrial}"
CREATE="$MT_SOURCE_DIR/examples/create-demo"
PY="${PYTHON:-python3}"

pass=0
fail=0
check() { # check DESCRIPTION COMMAND...
	local desc="$1"
	shift
	if "$@" >/dev/null 2>&1; then
		pass=$((pass + 1))
		echo "ok   - $desc"
	else
		fail=$((fail + 1))
		echo "FAIL - $desc"
	fi
}
# shellcheck disable=SC2317 # called through check
is() { [ "$1" = "$2" ]; }
# shellcheck disable=SC2317
has() { grep -q -- "$2" "$1"; }     # has FILE PATTERN (basic regex)
# shellcheck disable=SC2317
hasF() { grep -qF -- "$2" "$1"; }   # hasF FILE FIXED-STRING
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

tmp="$(mktemp -d)"
export XDG_CACHE_HOME="$tmp/cache" # never the real ~/.cache
trap 'rm -rf "$tmp"' EXIT
demo="$tmp/demo"
g() { git -C "$demo" "$@"; }

# --- refusals ------------------------------------------------------------------
rc=0
MTRIAL="$MTRIAL" bash "$CREATE" >"$tmp/usage.out" 2>&1 || rc=$?
check "no DIR: exit 2" is "$rc" 2
check "no DIR: usage message" has "$tmp/usage.out" "usage: create-demo DIR"

mkdir -p "$tmp/busy" && echo keep >"$tmp/busy/file"
rc=0
MTRIAL="$MTRIAL" bash "$CREATE" "$tmp/busy" >"$tmp/busy.out" 2>&1 || rc=$?
check "non-empty DIR: exit 2" is "$rc" 2
check "non-empty DIR: says why" has "$tmp/busy.out" "not empty"
check "non-empty DIR: left alone" is "$(ls -A "$tmp/busy")" "file"

# --- create the demo -------------------------------------------------------------
rc=0
MTRIAL="$MTRIAL" bash "$CREATE" "$demo" >"$tmp/create.out" 2>"$tmp/create.err" || rc=$?
check "create-demo exits 0" is "$rc" 0
if [ "$rc" -ne 0 ]; then
	sed 's/^/  | /' "$tmp/create.out" "$tmp/create.err"
	[ -d "$demo/.git" ] || finish
fi
check "prints how to open the trial" hasF "$tmp/create.out" "--trial $demo/.mtrial tui"

# --- git history ---------------------------------------------------------------------
check "branch main exists" g rev-parse -q --verify refs/heads/main
check "branch trial/neuron exists" g rev-parse -q --verify refs/heads/trial/neuron
check "left on main" is "$(g symbolic-ref --short HEAD)" main
check "main has 3 baseline commits" is "$(g rev-list --count main)" 3
g log --format=%s main >"$tmp/main.log"
check "main: initial commit" hasF "$tmp/main.log" "Initial model and data pipeline"
check "main: training loop commit" hasF "$tmp/main.log" "Add training loop with AMP, evaluation and checkpointing"
check "trial/neuron branches from main" is "$(g merge-base main trial/neuron)" "$(g rev-parse main)"
check "trial/neuron is 2 commits ahead" is "$(g rev-list --count main..trial/neuron)" 2
check "portability commit" is "$(g log -1 --format=%s trial/neuron~1)" "Port to neuron device (portability track)"
check "optimized commit" is "$(g log -1 --format=%s trial/neuron)" \
	"Bucket sequence lengths to avoid recompiles (optimized track)"
check "working tree clean (tracked files)" is "$(g status --porcelain --untracked-files=no)" ""

g diff --name-only main trial/neuron >"$tmp/names"
for f in train.py model.py data.py requirements.txt configs/small.yaml; do
	check "main..trial/neuron touches $f" grep -qx -- "$f" "$tmp/names"
done
g diff main trial/neuron >"$tmp/diff"
check "diff mentions neuron" has "$tmp/diff" "neuron"
check "diff: device default neuron" has "$tmp/diff" '^+.*default=.*"neuron"'
check "diff: compile backend=neuron" hasF "$tmp/diff" '+        model = torch.compile(model, backend="neuron")'
check "diff: max-autotune removed" has "$tmp/diff" '^-.*mode="max-autotune"'
check "diff: GradScaler removed" has "$tmp/diff" '^-.*GradScaler'
check "diff: autocast device_type" has "$tmp/diff" '^+.*torch.autocast(device_type='
check "diff: .double() removed" has "$tmp/diff" '^-.*\.double()'
check "diff: flash-attn dropped" has "$tmp/diff" '^-flash-attn'
g diff trial/neuron~1 trial/neuron >"$tmp/diff2"
check "optimized commit pads to multiples of 128" has "$tmp/diff2" '^+.*pad_to_multiple_of: 128'
check "optimized commit keeps the batch shape fixed" has "$tmp/diff2" 'drop_last=True'

# Every .py compiles at both revisions.
for rev in main trial/neuron; do
	out="$tmp/tree-${rev//\//-}"
	mkdir -p "$out"
	g archive "$rev" | tar -x -C "$out"
	n=0 bad=0
	while IFS= read -r f; do
		n=$((n + 1))
		# byte code lands in the throw-away tree's __pycache__
		"$PY" -m py_compile "$f" >"$tmp/pyc.err" 2>&1 ||
			{ bad=$((bad + 1)); echo "  | $rev: ${f#"$out"/} does not compile"; sed 's/^/  |   /' "$tmp/pyc.err"; }
	done < <(find "$out" -name '*.py')
	check "$rev: $n .py files, all compile" test "$n" -ge 3 -a "$bad" -eq 0
done

# Two runs give the same history (fixed identity and dates).
if MTRIAL="$MTRIAL" bash "$CREATE" "$tmp/again" >/dev/null 2>&1; then
	check "history is reproducible (main)" is "$(git -C "$tmp/again" rev-parse main)" "$(g rev-parse main)"
	check "history is reproducible (trial/neuron)" is \
		"$(git -C "$tmp/again" rev-parse trial/neuron)" "$(g rev-parse trial/neuron)"
else
	check "second create-demo succeeds" false
fi

# --- the trial -------------------------------------------------------------------------
spec="$demo/.mtrial/trial.yaml"
check "trial.yaml exists" test -s "$spec"
check "journal.db exists" test -s "$demo/.mtrial/journal.db"
check "trial.yaml has the spec's name" hasF "$spec" 'name: "GPT-small fine-tune: A100 -> Trainium2"'
check "workload.revision is main's commit" hasF "$spec" "revision: \"$(g rev-parse main)\""
check "optimized head is trial/neuron's commit" hasF "$spec" "head: \"$(g rev-parse trial/neuron)\""
# shellcheck disable=SC2016 # $1 is bash -c's argument
check "no placeholder left" bash -c '! grep -q "@[A-Z_]*@" "$1"' _ "$spec"
rc=0
"$MTRIAL" --trial "$demo/.mtrial" spec --json >"$tmp/spec.json" 2>"$tmp/spec.err" || rc=$?
check "mtrial spec accepts the demo trial.yaml" is "$rc" 0
[ "$rc" -eq 0 ] || sed 's/^/  | /' "$tmp/spec.err"
# shellcheck disable=SC2016
check_spec='
import json, sys
s = json.load(open(sys.argv[1]))
assert s["workload"]["revision"] == sys.argv[2], s["workload"]
assert s["tracks"]["portability"]["base"] == "main"
assert s["systems"]["baseline"]["count"] == 8
assert len(s["criteria"]) == 6
assert {c["kind"] for c in s["criteria"]} >= {"quality", "correctness", "ops", "time_to_quality", "cost_to_quality", "effort"}
'
check "spec --json: typed values and real revision" "$PY" -c "$check_spec" "$tmp/spec.json" "$(g rev-parse main)"
check ".mtrial is not committed" is "$(g ls-tree -r --name-only main -- .mtrial)" ""

rc=0
"$MTRIAL" --trial "$demo/.mtrial" notes --json >"$tmp/notes.json" 2>"$tmp/notes.err" || rc=$?
check "notes --json exits 0" is "$rc" 0
[ "$rc" -eq 0 ] || sed 's/^/  | /' "$tmp/notes.err"
# shellcheck disable=SC2016
check_notes='
import json, sys
doc = json.load(open(sys.argv[1]))
notes = doc["notes"] if isinstance(doc, dict) else doc
texts = [n["text"] for n in notes]
tags = {t for n in notes for t in n.get("tags") or []}
tracks = {n.get("track") for n in notes}
assert len(notes) >= 6, len(notes)
assert any("max-autotune is CUDA-only" in t for t in texts), texts
assert {"compile", "precision", "shapes"} <= tags, tags
assert {"portability", "optimized"} <= tracks, tracks
assert any(n.get("interval") for n in notes), "no note made while the timer ran"
'
check "notes --json lists the demo notes" "$PY" -c "$check_notes" "$tmp/notes.json"
rc=0
(cd "$demo" && "$MTRIAL" notes --json) >"$tmp/notes-cwd.json" 2>/dev/null || rc=$?
check "notes found from inside DIR" test "$rc" -eq 0 -a -s "$tmp/notes-cwd.json"

# the demo records a scan of the baseline: the report shows its inventory
"$MTRIAL" --trial "$demo/.mtrial" report --format json >"$tmp/report.json" 2>/dev/null
check_scan='
import json, sys
r = json.load(open(sys.argv[1]))
s = r["scan"]
assert s and s["rev"] == sys.argv[2], s
assert s["totals"]["calls"] > 20, s["totals"]
assert any(d["name"] == "flash-attn" for d in s["cuda_only_dependencies"]), s
assert r["steps"][0]["status"] == "done", r["steps"][0]
'
check "the demo trial holds a scan of main" "$PY" -c "$check_scan" "$tmp/report.json" "$(g rev-parse main)"

# and a dispatch trace of three CPU steps of main's train.py (install-deps
# installs the torch it needs): the backward ops the scan cannot see, and the
# shapes that vary with padding to the longest sequence
check_trace='
import json, sys
t = json.load(open(sys.argv[1]))["exact"]["trace"]
assert t and t["detail"]["steps"] == 3 and t["detail"]["ended"] == "max_steps", t
assert "aten::embedding_dense_backward" in t["backward_only"], t["backward_only"]
assert "aten::embedding_dense_backward" not in (t["missed_by_scan"] or ""), t  # each op in one list
assert t["varying_shapes"], t
'
check "the demo trial holds a dispatch trace of main" "$PY" -c "$check_trace" "$tmp/report.json"

# and real runs of both systems' code on this CPU, labelled as stand-ins and
# recorded as rehearsals: the baseline (main), the portability track failing
# without a neuron device, then the portability track on the CPU; their loss
# curves agree
"$MTRIAL" --trial "$demo/.mtrial" runs --json >"$tmp/runs.json" 2>/dev/null
check_runs='
import json, sys
doc = json.load(open(sys.argv[1]))
runs = doc["runs"]
got = [(r["system"], r["track"], r["status"], r["exit_status"]) for r in runs]
assert got == [("baseline", None, "success", 0), ("candidate", "portability", "failed", 1),
               ("candidate", "portability", "success", 0)], got
assert all(r["label"].startswith("CPU stand-in") for r in runs), [r["label"] for r in runs]
for r in (runs[0], runs[2]):
    m = r["metrics"]
    assert m["steps"] == 40 and [e["step"] for e in m["evaluations"]] == [10, 20, 30, 40], m
    assert r["throughput"]["unit"] == "target tokens/s" and r["throughput"]["value"] > 0, r
    assert 0 < m["steady"]["padding_fraction"] < 1, m["steady"]
    assert r["reached"] is False and r["clock1_s"] > 0, r
'
check "the demo trial holds CPU stand-in runs of both systems" "$PY" -c "$check_runs" "$tmp/runs.json"
# the stand-ins are rehearsals: never evidence, never priced at the A100's
# or the Trainium2's rates
check_rehearsals='
import json, sys
doc = json.load(open(sys.argv[1]))
runs = doc["runs"]
assert all(r["rehearsal"] is True for r in runs), [r["rehearsal"] for r in runs]
assert all(r["cost"] is None and r["device_hours"] is None and r["not_priced"] == "rehearsal"
           for r in runs), [(r["cost"], r["device_hours"]) for r in runs]
assert doc["systems"] == {"baseline": None, "candidate": None}, doc["systems"]
'
check "the stand-ins are rehearsals, not priced, out of the per-system figures" \
	"$PY" -c "$check_rehearsals" "$tmp/runs.json"

# the verdict: not enough evidence, with what is missing; no NO-GO from the
# stand-ins that could not reach the target in 40 CPU steps
rc=0
"$MTRIAL" --trial "$demo/.mtrial" decide --json >"$tmp/decide.json" 2>/dev/null || rc=$?
check "decide exits 1 (not a GO)" is "$rc" 1
check_decision='
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "NOT_ENOUGH_EVIDENCE", (d["verdict"], d["failed"])
assert d["failed"] == [], d["failed"]
runs = {c["name"]: c for c in d["criteria"] if c["kind"] in ("quality", "time_to_quality", "cost_to_quality")}
assert len(runs) == 3 and all(c["status"] == "unknown" for c in runs.values()), runs
for c in runs.values():
    assert c["missing"] and all("a real run, not a rehearsal" in m["what"] for m in c["missing"]), c["missing"]
    assert "left out: not evidence" in c["evidence"], c["evidence"]
assert any("(2 candidate rehearsal run(s) left out" in m["what"] for m in d["missing"]), d["missing"]
assert any("(1 baseline rehearsal run(s) left out" in m["what"] for m in d["missing"]), d["missing"]
# the stand-in curves compared are a rehearsal check: correctness unknown, not met
ok = [c for c in d["criteria"] if c["kind"] == "correctness"]
assert len(ok) == 1 and ok[0]["status"] == "unknown", ok
assert "only rehearsal checks are recorded" in ok[0]["evidence"], ok[0]["evidence"]
assert "rehearsal check #1 left out: not evidence" in ok[0]["evidence"], ok[0]["evidence"]
assert [m["what"] for m in ok[0]["missing"]] == ["tensors or loss curves of both systems compared: "
    "a real comparison, not a rehearsal (1 rehearsal check(s) left out: they compared stand-ins "
    "and are not evidence)"], ok[0]["missing"]
'
check "the verdict is NOT ENOUGH EVIDENCE, the run criteria asking for real runs and correctness for a real comparison" \
	"$PY" -c "$check_decision" "$tmp/decide.json"

# the report says so: the verdict, no evidence among the runs, the
# rehearsals apart with their labels, no cost
"$MTRIAL" --trial "$demo/.mtrial" report >"$tmp/report.md" 2>/dev/null
check "report: the verdict" hasF "$tmp/report.md" "## Verdict: NOT ENOUGH EVIDENCE"
check "report: no run is evidence" hasF "$tmp/report.md" "No run recorded as evidence yet: only the rehearsals below, which are not evidence."
check "report: the rehearsals apart" hasF "$tmp/report.md" "### Rehearsals (3): not evidence"
check "report: the stand-ins' labels kept" hasF "$tmp/report.md" "| #3 CPU stand-in for Trainium2: portability track"
check "report: no check is evidence" hasF "$tmp/report.md" "No check recorded as evidence yet: only the rehearsal checks below"
check "report: the rehearsal check apart" hasF "$tmp/report.md" "### Rehearsal checks (1): not evidence"
check "report: no cost table" bash -c '! grep -q "^What the runs cost" "$1"' _ "$tmp/report.md"
check "report: no NO-GO" bash -c '! grep -q "NO-GO" "$1"' _ "$tmp/report.md"
"$MTRIAL" --trial "$demo/.mtrial" check list --json >"$tmp/checks.json" 2>/dev/null
check "the stand-ins' loss curves agree step by step, a rehearsal check" "$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))
c = c["checks"] if isinstance(c, dict) else c
curves = [x for x in c if x["kind"] == "curves"]
assert len(curves) == 1 and curves[0]["passed"] and curves[0]["points"] == 40, curves
assert curves[0]["rehearsal"] is True, curves' "$tmp/checks.json"

finish
