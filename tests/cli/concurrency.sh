# Several writers at once: 4 processes add 250 notes each while the wizard
# holds the trial open in a terminal; all 1,000 notes must be there.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name concurrency

SOCK="mt-conc-$$"
tmux -L "$SOCK" -f /dev/null new-session -d -x 80 -y 24 \
	"env TERM=xterm LANG=C.UTF-8 HOME=$T_TMP $MTRIAL --trial $R/.mtrial tui"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T_TMP"' EXIT
for _ in $(seq 50); do
	tmux -L "$SOCK" capture-pane -p 2>/dev/null | grep -q "Repository" && break
	sleep 0.1
done
check "wizard is open" sh -c "tmux -L $SOCK capture-pane -p | grep -q Repository"

writer() {
	local w=$1 fails=0
	for i in $(seq 250); do
		"$MTRIAL" note "w$w-n$i" --tag "w$w" >/dev/null 2>>"$T_TMP/errors" || fails=$((fails + 1))
	done
	echo "$fails" >"$T_TMP/fails.$w"
}
for w in 1 2 3 4; do writer "$w" & done
wait

eq "$(cat "$T_TMP"/fails.* | awk '{s+=$1} END {print s}')" 0 "no writer failed"
[ -s "$T_TMP/errors" ] && cat "$T_TMP/errors" >&2
run_mt 0 notes --json
eq "$(json 'len(j)')" 1000 "all 1000 notes present"
eq "$(json 'len(set(n["text"] for n in j))')" 1000 "all distinct"
for w in 1 2 3 4; do
	run_mt 0 notes --tag "w$w" --json
	eq "$(json 'len(j)')" 250 "writer $w's 250 notes"
done
eq "$(sqlite3 "$R/.mtrial/journal.db" 'PRAGMA integrity_check')" ok "integrity"
check "wizard still running" tmux -L "$SOCK" has-session
finish
