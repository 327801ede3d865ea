# mtrial check compare: agreement with torch.testing.assert_close case by
# case (dtypes, shapes, NaN, Inf, zeros, empty tensors), directories matched
# by name, --tol globs, trial.yaml tolerances, --stat, --noise, exit codes,
# recording in the journal, and bad files named in the messages.
. "$MT_SOURCE_DIR/tests/lib.sh"
export HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
TORCH_PY=${MTRIAL_TORCH_PYTHON:-/usr/bin/python3} # Debian's python3-torch
D=$T_TMP/t
"$TORCH_PY" "$MT_SOURCE_DIR/tests/check/make_tensors.py" "$D" || { bad "make_tensors.py failed"; finish; exit; }
cd "$T_TMP" # no trial here: nothing is recorded

# --- agreement with assert_close, case by case -------------------------------
mkdir -p "$T_TMP/got"
for c in $(python3 -c "import json; print(' '.join(sorted(json.load(open('$D/expected.json')))))"); do
	args=$(python3 -c "import json; print(' '.join(json.load(open('$D/expected.json'))['$c']['args']))")
	# shellcheck disable=SC2086
	"$MTRIAL" check compare --json $args "$D/$c/ref.safetensors" "$D/$c/cand.safetensors" \
		>"$T_TMP/got/$c.json" 2>"$T_TMP/got/$c.err"
	echo $? >"$T_TMP/got/$c.status"
done
python3 - "$D/expected.json" "$T_TMP/got" >"$T_TMP/agree" <<'PY'
import json, math, sys
exp = json.load(open(sys.argv[1]))
def close(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
for case, e in sorted(exp.items()):
    status = int(open(f"{sys.argv[2]}/{case}.status").read())
    got = json.load(open(f"{sys.argv[2]}/{case}.json"))
    t = got["tensors"][0]
    bad = []
    if status != (0 if e["passed"] else 1):
        bad.append(f"exit {status}")
    for k in ("passed", "mismatched", "numel"):
        if t[k] != e[k]:
            bad.append(f"{k} {t[k]} != {e[k]}")
    for k in ("rtol", "atol", "max_abs", "max_rel"):
        if k in e and not close(t[k], e[k]):
            bad.append(f"{k} {t[k]} != {e[k]}")
    for k in ("max_abs_index", "max_rel_index"):
        if k in e and t[k] != e[k]:
            bad.append(f"{k} {t[k]} != {e[k]}")
    print(f"{case}: " + ("ok" if not bad else "; ".join(bad)))
PY
n_cases=$(grep -c . "$T_TMP/agree")
check "at least 40 cases" test "$n_cases" -ge 40
while read -r line; do eq "${line#*: }" ok "agreement with assert_close, ${line%%:*}"; done <"$T_TMP/agree"

# text output in assert_close's words, the reference named
run_mt 1 check compare "$D/f32_2d/ref.safetensors" "$D/f32_2d/cand.safetensors"
has "Mismatched elements: 2 / 1000 (0.2%)" "$OUT" "mismatch line"
has "Greatest absolute difference: 0.5 at index (7, 37) (up to 1e-05 allowed)" "$OUT" "abs line"
has "Greatest relative difference: " "$OUT" "rel line"
has "Reference (expected): $D/f32_2d/ref.safetensors" "$OUT" "reference named"
has "(not recorded: no trial)" "$OUT" "no trial, not recorded"
# the greatest difference within tolerance (a large reference) beside the
# greatest among the mismatched: both said, each named for what it is over
python3 - "$T_TMP/allmax" <<'PY'
import json, os, struct, sys
os.makedirs(sys.argv[1], exist_ok=True)
def write(path, vals):
    data = struct.pack("<%df" % len(vals), *vals)
    head = json.dumps({"x": {"dtype": "F32", "shape": [len(vals)], "data_offsets": [0, len(data)]}}).encode()
    open(path, "wb").write(struct.pack("<Q", len(head)) + head + data)
write(sys.argv[1] + "/ref.safetensors", [1000.0, 0.0, 0.0, 0.0])
write(sys.argv[1] + "/cand.safetensors", [1000.5, 0.25, 0.0, 0.0])
PY
run_mt 1 check compare "$T_TMP/allmax/ref.safetensors" "$T_TMP/allmax/cand.safetensors" --rtol 0.001 --atol 0.01
has "Greatest absolute difference: 0.25 at index (1,) (up to 0.01 allowed)" "$OUT" "among the mismatched, as assert_close"
has "Over all elements: greatest absolute 0.5, relative " "$OUT" "over all elements, the within-tolerance one"
run_mt 0 check compare "$D/large_within/ref.safetensors" "$D/large_within/cand.safetensors" --json
eq "$(json 'j["tensors"][0]["cosine"] > 0.999999')" True "cosine of near-equal tensors"
eq "$(json 'j["tensors"][0]["warnings"]')" "[]" "no warnings"
run_mt 1 check compare "$D/zeros_off/ref.safetensors" "$D/zeros_off/cand.safetensors" --json
eq "$(json 'j["tensors"][0]["min_rtol"]')" inf "min_rtol inf where ref is 0"
has "within atol" "$(json 'j["tensors"][0]["warnings"]')" "near-zero warning"
eq "$(json 'round(j["tensors"][0]["min_atol"], 9)')" 0.001 "min_atol = greatest difference"
run_mt 0 check compare "$D/mixed_f32_bf16/ref.safetensors" "$D/mixed_f32_bf16/cand.safetensors" --json
eq "$(json '(j["tensors"][0]["candidate_dtype"], j["tensors"][0]["tolerance_source"])')" "('bfloat16', 'default bfloat16')" "mixed dtypes: looser default"

# --- --stat (Polygraphy's check-error-stat) -----------------------------------
R3=$D/f32_three_off
run_mt 1 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --stat max
run_mt 0 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --stat median --json
eq "$(json '(j["stat"], j["tensors"][0]["stat_abs"], j["tensors"][0]["passed"])')" "('median', 0.0, True)" "median of errors is 0"
run_mt 0 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --stat mean --atol 1e-3 --json
eq "$(json 'round(j["tensors"][0]["stat_abs"], 9)')" 0.000351 "mean abs error (0.25+0.1+0.001)/1000"
run_mt 1 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --stat quantile:0.999 --json
eq "$(json 'j["stat"]')" quantile:0.999 "quantile named"
run_mt 2 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --stat quantile:2
has "quantile:Q" "$ERR" "bad quantile"
run_mt 0 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --rtol 0 --atol 0.25
run_mt 1 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --rtol 0 --atol 0.2499

# --- directories, --tol, --noise -----------------------------------------------
DR=$D/dirs
run_mt 1 check compare "$DR/ref" "$DR/cand" --json
eq "$(json '(j["only_in_reference"], j["only_in_candidate"])')" "(['only_ref'], ['only_cand'])" "names on one side"
eq "$(json 'sorted(t["name"] for t in j["tensors"])')" "['attn.q', 'dtype_mm', 'layer.0.b', 'layer.0.w', 'shape_mm']" "matched across files"
eq "$(json '[t["name"] for t in j["tensors"]][:2]')" "['dtype_mm', 'shape_mm']" "not compared first"
eq "$(json '[t["passed"] for t in j["tensors"] if t["name"] == "layer.0.b"]')" "[True]" "equal tensor passes"
has "shapes differ" "$(json '[t["reason"] for t in j["tensors"] if t["name"] == "shape_mm"]')" "shape mismatch reason"
has "dtypes differ" "$(json '[t["reason"] for t in j["tensors"] if t["name"] == "dtype_mm"]')" "dtype mismatch reason"
eq "$(json '[t["max_abs_index"] for t in j["tensors"] if t["name"] == "layer.0.w"]')" "[[1, 2]]" "multi-index"
run_mt 1 check compare "$DR/ref" "$DR/cand" --tol 'layer.*=0,1e-2' --tol 'attn.*=1e-3,0' --json
eq "$(json 'sorted((t["name"], t["passed"], t["tolerance_source"]) for t in j["tensors"] if "reason" not in t)')" \
	"[('attn.q', True, '--tol attn.*'), ('layer.0.b', True, '--tol layer.*'), ('layer.0.w', True, '--tol layer.*')]" "--tol globs"
run_mt 1 check compare "$DR/ref" "$DR/cand" --tol 'attn.*=1e-3,0' --rtol 0 --atol 1e-2 --json
eq "$(json 'sorted((t["name"], t["tolerance_source"]) for t in j["tensors"] if "reason" not in t)')" \
	"[('attn.q', '--tol attn.*'), ('layer.0.b', '--rtol/--atol'), ('layer.0.w', '--rtol/--atol')]" "--rtol/--atol below --tol"
run_mt 2 check compare "$DR/ref" "$DR/cand" --tol 'layer.*=1e-3'
has "GLOB=RTOL,ATOL" "$ERR" "bad --tol"
run_mt 1 check compare "$DR/ref" "$DR/cand" --noise "$DR/ref2" --json
eq "$(json '[round(t["noise"]["ratio"], 2) for t in j["tensors"] if t["name"] == "layer.0.w"]')" "[10.0]" "noise ratio per tensor"
eq "$(json '(j["noise"]["worst"], round(j["noise"]["ratio"], 2))')" "('layer.0.w', 10.0)" "noise overall"
run_mt 1 check compare "$DR/ref" "$DR/cand" --noise "$DR/ref2"
has "Noise floor" "$OUT" "noise in text"
run_mt 0 check compare "$DR/ref.pt" "$DR/ref" --json
eq "$(json 'len(j["tensors"]), j["passed"]')" "6 True" "a torch.save state_dict against the same tensors in safetensors"
mkdir -p "$T_TMP/ptdir" && cp "$DR/ref.pt" "$T_TMP/ptdir/state.pt"
run_mt 0 check compare "$T_TMP/ptdir" "$DR/ref" --json
eq "$(json 'len(j["tensors"]), j["passed"]')" "6 True" "a directory of torch.save files matched by name"
mkdir -p "$T_TMP/nodir"; run_mt 2 check compare "$T_TMP/nodir" "$DR/ref"
has "no tensor files (*.safetensors, *.pt, *.pth)" "$ERR" "an empty directory"
run_mt 2 check compare "$DR/dup" "$DR/dup"
has "tensor 'x' is in both" "$ERR" "a name twice in a directory"

# --- recording in a trial, and trial.yaml tolerances ---------------------------
R=$T_TMP/repo
new_repo "$R"
cd "$R" && "$MTRIAL" init >/dev/null 2>&1
run_mt 1 check compare "$R3/ref.safetensors" "$R3/cand.safetensors"
has "Recorded as check #1" "$OUT" "recorded"
run_mt 0 check compare "$D/f32_equal/ref.safetensors" "$D/f32_equal/cand.safetensors" --json
eq "$(json 'j["check_id"]')" 2 "check_id in JSON"
eq "$(sqlite3 .mtrial/journal.db 'select count(*) from checks')" 2 "two checks in the journal"
run_mt 0 check list --json
eq "$(json '[c["passed"] for c in j]')" "[True, False]" "listed newest first"
cat >>.mtrial/trial.yaml <<'YAML'
YAML
python3 - .mtrial/trial.yaml <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r"(?ms)^tolerances:.*?(?=^\S)", "tolerances:\n  default: {rtol: 0, atol: 0.3}\n"
           "  overrides:\n    - {name: 'never*', rtol: 0, atol: 0}\n", s)
open(p, "w").write(s)
PY
run_mt 0 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --json
eq "$(json 'j["tensors"][0]["tolerance_source"]')" "trial.yaml tolerances.default" "trial.yaml default"
run_mt 1 check compare "$R3/ref.safetensors" "$R3/cand.safetensors" --atol 0.2 --json
eq "$(json 'j["tensors"][0]["tolerance_source"]')" "--rtol/--atol" "the command line outranks trial.yaml"
cd "$T_TMP"

# --- exit codes and bad files ---------------------------------------------------
run_mt 2 check compare "$D/f32_equal/ref.safetensors"
has "expected REF and CAND" "$ERR" "one argument"
run_mt 2 check compare "$T_TMP/nope.safetensors" "$D/f32_equal/ref.safetensors"
has "nope.safetensors" "$ERR" "missing file named"
run_mt 2 check compare --rtol x a b
run_mt 0 check compare --help
has "16 bytes per element" "$OUT" "help says median keeps errors in memory"
for f in $(python3 -c "import json; print(' '.join(sorted(json.load(open('$D/bad.json')))))"); do
	want=$(python3 -c "import json; print(json.load(open('$D/bad.json'))['$f'])")
	run_mt 2 check compare "$D/bad/$f" "$D/f32_equal/ref.safetensors"
	has "$D/bad/$f: " "$ERR" "$f: the message names the file"
	has "$want" "$ERR" "$f: the message says what is wrong"
	run_mt 2 check compare "$D/f32_equal/ref.safetensors" "$D/bad/$f" --json
	has '"error"' "$OUT" "$f: JSON error"
done

# --- hostile torch.save files (tests/check/make_hostile.py): never loaded -------
H=$T_TMP/hostile
"$TORCH_PY" "$MT_SOURCE_DIR/tests/check/make_hostile.py" "$H" || bad "make_hostile.py failed"
run_mt 0 check compare "$H/plain.pt" "$H/code.pt"
has "warning: $H/code.pt: its pickle calls posix.system, which torch.load(weights_only=False) would run" \
	"$OUT" "a REDUCE of os.system is named in the text"
has "its pickle names posix.getcwd, which torch.load(weights_only=False) would import" "$OUT" \
	"a global that is only named"
hasnt "plain.pt: its pickle" "$OUT" "a plain state_dict names nothing"
check "the pickle's os.system never ran" test ! -e "$H/ran"
run_mt 0 check compare "$H/plain.pt" "$H/code.pt" --json
eq "$(json '[(g["name"], g["called"]) for g in j["pickle_globals"]]')" \
	"[('posix.system', True), ('posix.getcwd', False)]" "the globals in JSON"
eq "$(json 'len(j["warnings"]), j["passed"]')" "2 True" "warned, the verdict unchanged"
run_mt 0 check compare "$H/honest.pt" "$H/honest.pt" --json
eq "$(json 'j["tensors"][0]["shape"], "warnings" in j')" "[1000, 3] False" \
	"an expanded (stride 0) view torch.save wrote is read, without a warning"
# a crafted memo index or view size must not cost memory: 300 MB of address
# space is plenty for mtrial and far below what the file asks for (under
# AddressSanitizer, which reserves terabytes of address space for its shadow,
# the same 300 MB as resident memory instead)
limited() {
	if ldd "$MTRIAL" 2>/dev/null | grep -q libasan; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=300" "$@"
	else
		(ulimit -v 300000; "$@")
	fi
}
limited "$MTRIAL" check compare "$H/memo.pt" "$H/plain.pt" >"$T_TMP/out" 2>"$T_TMP/err"
eq "$?" 2 "a memo index of 2**26 is an input error"
has "$H/memo.pt: data.pkl: memo index 67108864 out of range" "$(cat "$T_TMP/err")" "the memo bomb named"
limited "$MTRIAL" check compare "$H/expand.pt" "$H/plain.pt" >"$T_TMP/out" 2>"$T_TMP/err"
eq "$?" 2 "a 1 GiB view of 4 bytes is an input error"
has "$H/expand.pt: a strided view of 1073741824 bytes (over a storage of 4)" "$(cat "$T_TMP/err")" \
	"the view bomb named"
R9=$T_TMP/repo9
new_repo "$R9"
(cd "$R9" && "$MTRIAL" init >/dev/null 2>&1 && "$MTRIAL" check compare "$H/plain.pt" "$H/code.pt" >/dev/null)
OUT=$(cd "$R9" && "$MTRIAL" check list --json)
eq "$(json '[g["name"] for g in j[0]["pickle_globals"]]')" \
	"['posix.system', 'posix.getcwd']" "the recorded check keeps the globals"

finish
