# mtrial sync takes in the events it receives (issue 19): when all come
# after the index's last event (time, then id) only the new lines are
# indexed; when one is older, the index is made again, so that the local
# ids read the same on every clone either way.
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/cli/lib/sync.bash"

sync_setup

# the ids and texts a clone lists: ids are local, given in the order the
# index took the events
ids() { (cd "$1" && "$MTRIAL" notes --json | python3 -c '
import json, sys; print([(n["id"], n["text"]) for n in json.load(sys.stdin)])'); }

cd "$A" && run_mt 0 note "a1"
run_mt 0 sync --json
eq "$(json 'j["reindexed"]')" "False" "A receives nothing: nothing to index"
cd "$B" && run_mt 0 sync --json
eq "$(json 'j["events"]["received"], j["reindexed"]')" "1 False" \
	"B's index is empty: the one received is after it, caught up"

# B's b1, then A's a2 (newer): A receives b1, older than its a2
cd "$B" && run_mt 0 note "b1"
cd "$A" && run_mt 0 note "a2"
cd "$B" && run_mt 0 sync --json
eq "$(json 'j["events"]["sent"], j["events"]["received"]')" "1 0" "B sends b1"
cd "$A" && run_mt 0 sync --json
eq "$(json 'j["events"]["received"], j["reindexed"]')" "1 True" \
	"b1 is older than A's a2: A's index is made again"
cd "$B" && run_mt 0 sync --json
eq "$(json 'j["events"]["received"], j["reindexed"]')" "1 False" \
	"a2 is after B's b1: B only indexes it"
eq "$(ids "$A")" "[(1, 'a1'), (2, 'b1'), (3, 'a2')]" "A lists the union in time order"
eq "$(ids "$B")" "$(ids "$A")" "B gives the same ids, without a rebuild"

# 1,000 new events from another machine: caught up, and counted
gen_events "$A" gena 1000
cd "$A" && run_mt 0 sync --json
cd "$B" && run_mt 0 sync --json
eq "$(json 'j["events"]["received"], j["reindexed"]')" "1000 False" "1,000 newer: caught up"
run_mt 0 index --json
eq "$(json 'j["events"], len(j["refused"])')" "1003 0" "the index counts them all"
run_mt 0 index --rebuild --json
eq "$(json 'j["events"]')" "1003" "as a rebuild does"
eq "$(ids "$B")" "$(ids "$A")" "and the ids still agree"

finish
