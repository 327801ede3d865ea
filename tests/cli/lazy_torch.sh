# libtorch is never linked into mtrial and is loaded only by commands that
# need it (doctor, for now).
. "$MT_SOURCE_DIR/tests/lib.sh"

check "mtrial does not link libtorch" sh -c "! ldd '$MTRIAL' | grep -q libtorch"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init
LD_DEBUG=files "$MTRIAL" notes >/dev/null 2>"$T_TMP/ld.notes"
check "notes loads no libtorch" sh -c "! grep -q 'libtorch' '$T_TMP/ld.notes'"
LD_DEBUG=files "$MTRIAL" report >/dev/null 2>"$T_TMP/ld.report"
check "report loads no libtorch" sh -c "! grep -q 'libtorch' '$T_TMP/ld.report'"
LD_DEBUG=files "$MTRIAL" doctor >/dev/null 2>"$T_TMP/ld.doctor"
check "doctor loads libtorch" grep -q 'libtorch' "$T_TMP/ld.doctor"

run_mt 0 doctor --json
eq "$(json '[l["found"] for l in j["libraries"]].count(False)')" 0 "every library found"
eq "$(json '[l["version"] for l in j["libraries"] if l["name"]=="libtorch"][0].split(".")[:2]')" "['1', '13']" "libtorch 1.13"
check "thousands of registered operators" test "$(json '[l["operators"] for l in j["libraries"] if l["name"]=="libtorch"][0]')" -gt 1000
MTRIAL_TORCH_MODULE=/nonexistent/libmtrial_torch.so "$MTRIAL" doctor --json >"$T_TMP/out" 2>/dev/null
eq "$?" 0 "a bad MTRIAL_TORCH_MODULE falls back to the next candidate"
finish
