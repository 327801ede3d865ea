# libgit2 is loaded on first use (git/git2_dl.c), like libcurl and libtorch:
# commands that never read a repository (--version, note, notes, spec) never
# map it or the fifteen objects it links; the ones that do load it, and a
# machine without it gets the library's name and dlopen's reason.
. "$MT_SOURCE_DIR/tests/lib.sh"

check "mtrial does not link libgit2" sh -c "! ldd '$MTRIAL' | grep -q libgit2"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init
for cmd in "--version" "note lazy" "notes" "spec"; do
	# shellcheck disable=SC2086
	LD_DEBUG=files "$MTRIAL" $cmd >/dev/null 2>"$T_TMP/ld"
	check "'$cmd' loads no libgit2" sh -c "! grep -q 'libgit2' '$T_TMP/ld'"
done
LD_DEBUG=files "$MTRIAL" scan >/dev/null 2>"$T_TMP/ld"
check "scan loads libgit2" grep -q 'libgit2' "$T_TMP/ld"
run_mt 0 scan --json
check "and scans with it" test "$(json 'j["files_scanned"]')" -ge 1

# a machine without libgit2 (or with something else under its name)
MTRIAL_LIBGIT2_LIBRARY=/nonexistent/libgit2.so.1.5 run_mt 1 scan
has "cannot load libgit2 (/nonexistent/libgit2.so.1.5)" "$ERR" "the library is named"
has "No such file or directory" "$ERR" "with dlopen's reason"
MTRIAL_LIBGIT2_LIBRARY=libz.so.1 run_mt 1 scan
has "libz.so.1 lacks git_" "$ERR" "a library that is not libgit2 is refused"
MTRIAL_LIBGIT2_LIBRARY=/nonexistent/libgit2.so.1.5 run_mt 1 doctor --json # 1: something is missing
eq "$(json '[l["found"] for l in j["libraries"] if l["name"]=="libgit2"][0]')" "False" "doctor says libgit2 is not found"
has "cannot load libgit2" "$(json '[l["error"] for l in j["libraries"] if l["name"]=="libgit2"][0]')" "and why"
MTRIAL_LIBGIT2_LIBRARY=/nonexistent/libgit2.so.1.5 run_mt 0 notes
has "lazy" "$OUT" "notes need no libgit2"
run_mt 0 doctor --json
eq "$(json '[l["version"] for l in j["libraries"] if l["name"]=="libgit2"][0].count(".")')" 2 "doctor reports libgit2's version when it loads"
finish
