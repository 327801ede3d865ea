# mtrial sync (issue 19) under contention: two clones syncing at once both
# finish, the one that pushes second fetching and merging again; a sync
# killed with SIGKILL after its commit, before its push, loses nothing and
# doubles nothing: the next one completes, and the index it left behind
# is made again in the union's order.
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/cli/lib/sync.bash"

sync_setup
cd "$A" && record A
cd "$B" && record B

# both at once; the pause holds each between its commit and its push, so
# that both fetched the same tip and one of the pushes is refused
(cd "$A" && MTRIAL_SYNC_TEST_PAUSE=1 "$MTRIAL" sync --json >"$T_TMP/a.json" 2>"$T_TMP/a.err"
 echo $? >"$T_TMP/a.rc") &
(cd "$B" && MTRIAL_SYNC_TEST_PAUSE=1 "$MTRIAL" sync --json >"$T_TMP/b.json" 2>"$T_TMP/b.err"
 echo $? >"$T_TMP/b.rc") &
wait
eq "$(cat "$T_TMP/a.rc") $(cat "$T_TMP/b.rc")" "0 0" "both syncs finish: $(cat "$T_TMP/a.err" "$T_TMP/b.err")"
OUT=$(cat "$T_TMP/a.json" "$T_TMP/b.json" | python3 -c '
import json, sys
text = sys.stdin.read()
d = json.JSONDecoder()
a, i = d.raw_decode(text)
b, _ = d.raw_decode(text[i:].lstrip())
print(json.dumps([a, b]))')
eq "$(json 'sorted(x["attempts"] for x in j)')" "[1, 2]" "the second to push fetched again"
eq "$(json '[x["pushed"] for x in j]')" "[True, True]" "and both pushed"
tree=$(git -C "$REM" ls-tree --name-only refs/mtrial/trial:events | wc -l)
eq "$tree" 2 "the remote holds both writers' files"
cd "$A" && run_mt 0 sync
cd "$B" && run_mt 0 sync
cd "$A" && run_mt 0 sync --json
eq "$(json 'j["pushed"], j["union"]["events"]')" "False 10" "then the union, once each"
same_union "two syncs at once"

# kill -9 between the commit and the push, after receiving B's new note
cd "$B" && run_mt 0 note "B before the kill" && run_mt 0 sync
cd "$A" && run_mt 0 note "A before the kill"
tip=$(git -C "$REM" rev-parse refs/mtrial/trial)
before=$(git -C "$A" rev-parse refs/mtrial/trial)
MTRIAL_SYNC_TEST_PAUSE=30 "$MTRIAL" sync >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	[ "$(git -C "$A" rev-parse refs/mtrial/trial)" != "$before" ] && break
	sleep 0.1
done
{ kill -9 "$pid" && wait "$pid"; } 2>/dev/null
check "killed after its commit" test "$(git -C "$A" rev-parse refs/mtrial/trial)" != "$before"
eq "$(git -C "$REM" rev-parse refs/mtrial/trial)" "$tip" "before its push"
check "a rebuild is owed" grep -q '"reindex":true' .mtrial/synced
run_mt 0 sync --json
eq "$(json 'j["pushed"], j["events"]["sent"], j["events"]["received"], j["attempts"]')" \
	"True 1 0 1" "the next sync pushes what the killed one committed"
check "the mark goes" grep -vq '"reindex"' .mtrial/synced
cd "$B" && run_mt 0 sync --json
eq "$(json 'j["events"]["received"]')" 1 "B takes A's note"
same_union "after a kill -9"
for c in "$A" "$B"; do
	cd "$c"
	"$MTRIAL" notes --json >"$c.notes"
done
check "the same ids on both clones" cmp -s "$A.notes" "$B.notes"
run_mt 0 notes --json
eq "$(json 'sum(n["text"].endswith("before the kill") for n in j)')" 2 "each note once"

finish
