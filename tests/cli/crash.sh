# kill -9 writers at random moments, again and again: the journal stays
# consistent and every note whose command exited 0 is there.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name crash

committed=()
killed=0
for i in $(seq 150); do
	"$MTRIAL" note "crash-$i" >/dev/null 2>&1 &
	pid=$!
	# a delay from 0 to ~6 ms, so kills land before, during and after the write
	sleep "0.00$((RANDOM % 7))"
	kill -9 "$pid" 2>/dev/null
	if wait "$pid" 2>/dev/null; then committed+=("crash-$i"); else killed=$((killed + 1)); fi
done
echo "crash: ${#committed[@]} writers finished, $killed killed" >&2
check "some writers were killed" test "$killed" -gt 0
eq "$(sqlite3 "$R/.mtrial/journal.db" 'PRAGMA integrity_check')" ok "integrity after kills"
run_mt 0 notes --json
printf '%s' "$OUT" | python3 -c 'import json,sys; print("\n".join(n["text"] for n in json.load(sys.stdin)))' | sort >"$T_TMP/present"
missing=0
for n in "${committed[@]}"; do grep -qx "$n" "$T_TMP/present" || missing=$((missing + 1)); done
eq "$missing" 0 "every note whose command exited 0 is present"
# the journal still takes writes
run_mt 0 note "after the storm"
run_mt 0 effort start --category debugging
run_mt 0 effort stop
finish
