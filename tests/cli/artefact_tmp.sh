# The temporary files an artefact writer killed mid-write leaves
# (objects/sha256/AB/HEX.tmp.PID): the next artefact written in that
# directory removes them, and so does `mtrial doctor` anywhere under
# objects/, saying so; never a live writer's (here the test's own shell).
# A bundle carries none of them.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init
printf 'step,loss,time\n1,9.0,0\n2,8.0,1\n3,7.0,2\n' >"$T_TMP/a.csv"
run_mt 0 runs import --system baseline "$T_TMP/a.csv"
dead=$(sh -c 'echo $$') # a process that has ended
hex=$(sha256sum <"$T_TMP/a.csv" | cut -c1-64)
d=.mtrial/objects/sha256/${hex:0:2}
check "the log's artefact is there" test -f "$d/${hex:2}"
: >"$d/${hex:2}.tmp.$dead"
: >"$d/${hex:2}.tmp.$$"
: >"$d/notes.tmp.x1" # not a temporary's name

run_mt 0 bundle -o "$T_TMP/b.tar.gz"
names=$(tar tzf "$T_TMP/b.tar.gz")
has "record/objects/sha256/${hex:0:2}/${hex:2}" "$names" "the bundle carries the artefact"
hasnt ".tmp." "$names" "and no temporary file, a live writer's or a dead one's"

OUT=$("$MTRIAL" doctor --json) # its status says also whether libtorch is here
eq "$(json 'j["trial"]["artefact_temporaries"]["removed"], j["trial"]["artefact_temporaries"]["live"]')" \
	"1 1" "doctor removes the dead writer's, counts the live one's"
check "the dead writer's temporary is gone" test ! -e "$d/${hex:2}.tmp.$dead"
check "the live writer's is kept" test -e "$d/${hex:2}.tmp.$$"
check "a file of another name is left" test -e "$d/notes.tmp.x1"
: >"$d/${hex:2}.tmp.$dead"
OUT=$("$MTRIAL" doctor)
has "removed   1 temporary artefact file(s) left by writers killed mid-write" "$OUT" "doctor says it did"
has "kept      1 temporary artefact file(s) of a writer still running" "$OUT" "and what it kept"
OUT=$("$MTRIAL" doctor)
hasnt "removed" "$OUT" "nothing left to remove the second time"

# the next write into that directory: a log with the same first two hex digits
i=0
while :; do
	printf 'step,loss,time\n1,%d.0,0\n2,1.0,1\n' "$i" >"$T_TMP/b.csv"
	h2=$(sha256sum <"$T_TMP/b.csv" | cut -c1-64)
	[ "${h2:0:2}" = "${hex:0:2}" ] && break
	i=$((i + 1))
done
: >"$d/ff.tmp.$dead"
run_mt 0 runs import --system candidate "$T_TMP/b.csv"
check "the next artefact written there stored" test -f "$d/${h2:2}"
check "... and the stale temporary removed" test ! -e "$d/ff.tmp.$dead"
check "... never the live writer's" test -e "$d/${hex:2}.tmp.$$"
finish
