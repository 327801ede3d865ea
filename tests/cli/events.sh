# The record as events (issue 19): every write appends a line to this
# writer's .mtrial/events/WRITER.jsonl with its author; journal.db is an
# index of them: deleted, it is made again and every listing reads the
# same; `mtrial index` lists the files and the lines refused (FILE:LINE,
# sanitised), a tampered line never stops the rest, --rebuild gives the
# same listings.
. "$MT_SOURCE_DIR/tests/lib.sh"
export HOME=$T_TMP/home
mkdir -p "$HOME"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
git config user.name "Ada Events"
git config user.email ada@example.com
run_mt 0 init --name events
has "/journal.db" "$(cat .mtrial/.gitignore)" "journal.db is local: .gitignore"
run_mt 0 note "pip resolver loops" --tag env
run_mt 0 effort start --track portability --category setup
run_mt 0 note "during the timer"
run_mt 0 effort stop
run_mt 0 effort add --duration 45m --track optimized "profiling"
run_mt 0 override aten::add device --note "works on 2.1"
printf 'mtrial:step=1 loss=2.9 time_ms=1700000001000\nmtrial:eval step=1 eval_loss=2.1 time_ms=1700000002000\n' >"$T_TMP/r.log"
run_mt 0 runs import --system candidate "$T_TMP/r.log"
run_mt 0 runs mark 1 --rehearsal
run_mt 0 rm note 1 --why "typo"

files=$(ls .mtrial/events)
eq "$(echo "$files" | wc -l | tr -d ' ')" 1 "one events file: this host's writer"
has "$(cut -d' ' -f2 .mtrial/writer).jsonl" "$files" "named after .mtrial/writer"
ev=.mtrial/events/$files
eq "$(wc -l <"$ev" | tr -d ' ')" 9 "one line an event"
OUT=$(head -1 "$ev")
eq "$(json 'j["author"]["name"], j["author"]["email"], j["kind"], j["v"]')" \
	"Ada Events ada@example.com note.add 2" "an event names its author and kind"
run_mt 0 notes --json
eq "$(json 'j[0]["author"]["name"], j[0]["author"]["email"], j[0]["author"]["host"] == "'"$(hostname)"'"')" \
	"Ada Events ada@example.com True" "notes --json says who wrote each, and on which host"
run_mt 0 effort log --json
eq "$(json 'sorted(set(e["author"]["name"] for e in j["intervals"]))')" "['Ada Events']" \
	"so does effort log --json, for each interval"
OUT=$(sed -n 3p "$ev")
eq "$(json 'j["data"]["interval"] is not None and len(j["data"]["interval"])')" 26 \
	"a note names its interval by the event's id"

snap() {
	for c in "notes --json" "effort log --json" "override --json" "rm --list --json" \
		"runs --all --json"; do
		# shellcheck disable=SC2086
		"$MTRIAL" $c | grep -v '"duration_ms"\|"now"'
	done
}
snap >"$T_TMP/before"
rm -f .mtrial/journal.db .mtrial/journal.db-wal .mtrial/journal.db-shm
snap >"$T_TMP/after"
check "journal.db deleted: every listing the same" cmp -s "$T_TMP/before" "$T_TMP/after"
check "and journal.db made again" test -s .mtrial/journal.db
run_mt 0 index --json
eq "$(json 'j["events"], len(j["files"]), j["refused"]')" "9 1 []" "index: 9 events, one file, none refused"

# a tampered line (a known id, another payload), one that is not JSON with
# an escape sequence, and a file cut short mid-line
first=$(head -1 "$ev")
{
	printf '%s\n' "${first/pip resolver/tampered}"
	printf 'not json \033]0;pwned\a\n'
	printf '{"v":1,"id":"01'
} >>"$ev"
run_mt 0 index
has "$files:10: event " "$OUT" "the tampered line named FILE:LINE"
has "already in the record with another payload ($files:1)" "$OUT" "... and why"
has "$files:11: not JSON" "$OUT" "a line that is not JSON"
hasnt $'\033' "$OUT" "what the file says is made safe"
has "a last line of 15 bytes is cut short" "$OUT" "the cut line is a warning"
run_mt 0 notes --json
eq "$(json '[n["text"] for n in j]')" "['during the timer']" "the rest still loads"
run_mt 0 note "after the damage"
run_mt 0 index --json
eq "$(json '[(r["line"], r["reason"][:8]) for r in j["refused"]]')" \
	"[(10, 'event 01'), (11, 'not JSON'), (12, 'not JSON')]" \
	"the cut line, closed by the next append, is refused on its own line"
eq "$(json 'j["events"]')" 10 "and the next event is read"
run_mt 0 index --rebuild
has "Rebuilt the index" "$OUT" "--rebuild"
run_mt 0 notes --json
eq "$(json '[n["text"] for n in j]')" "['during the timer', 'after the damage']" "rebuilt: the notes"
finish
