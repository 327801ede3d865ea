# The index heals when an events file it read is lost (issue 19): deleted
# by hand, then written again, the file is shorter than what the index
# read, or longer with other lines; or it is gone. The index sees it is not
# the file it read (its size, its first line) or that it is missing, and
# is made again from the events files on opening, without the events only
# that file held: it says so at line 0 of that file, and `index --json`
# that it rebuilt it and why. A rebuild keeps only what the files hold.
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/cli/lib/sync.bash" # gen_lines
export HOME=$T_TMP/home
mkdir -p "$HOME"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
git config user.name "Ada Heal"
git config user.email ada@example.com
run_mt 0 init --name heal
run_mt 0 note "one"
run_mt 0 note "two"
ev=.mtrial/events/$(ls .mtrial/events)
texts() { "$MTRIAL" notes --json | python3 -c '
import json, sys; print(sorted(n["text"] for n in json.load(sys.stdin)))'; }

# lost, then longer than before with other lines (another tool, a restore)
rm "$ev"
gen_lines other 5 >"$ev"
run_mt 0 index --json
eq "$(json 'j["events"]')" 5 "the 5 lines of the new file are indexed, the 2 read before no more"
eq "$(json '[(r["line"], "not the one read before" in r["reason"]) for r in j["refused"]]')" \
	"[(0, True)]" "said once, at line 0; no line refused"
eq "$(json 'j["rebuilt"], "not the one read before" in j["rebuilt_because"]')" "True True" \
	"index --json: rebuilt on opening, and why"
eq "$(texts)" "['other 0', 'other 1', 'other 2', 'other 3', 'other 4']" "every note listed once"
run_mt 0 index --json
eq "$(json 'j["events"], len(j["refused"]), j["rebuilt"], "rebuilt_because" in j')" \
	"5 1 False False" "read once: nothing new the next time, nothing rebuilt"

# lost: this writer's next note makes the index again first, then starts
# a new file
rm "$ev"
run_mt 0 note "three"
eq "$(wc -l <"$ev" | tr -d ' ')" 1 "the file made anew holds the one note"
run_mt 0 index --json
eq "$(json 'j["events"], j["files"][0]["lines"], j["files"][0]["bytes"] == '"$(stat -c %s "$ev")")" \
	"1 1 True" "read from its start: its one line, all its bytes"
eq "$(json '[(r["line"], "is gone" in r["reason"]) for r in j["refused"]]')" "[(0, True)]" \
	"said at line 0 (by the note, which made the index again)"
run_mt 0 note "four"
run_mt 0 index --json
eq "$(json 'j["events"], j["files"][0]["lines"], len(j["refused"])')" "2 2 1" \
	"the next note is read where it lands"
eq "$(texts)" "['four', 'three']" "listed"

# another writer's file, read, then removed by hand: its events go
gen_lines gone 3 >.mtrial/events/gone-00000000000000a1.jsonl
run_mt 0 index --json
eq "$(json 'j["events"], j["rebuilt"]')" "5 False" "its 3 events indexed"
rm .mtrial/events/gone-00000000000000a1.jsonl
run_mt 0 index
has "Rebuilt the index on opening it: gone-00000000000000a1.jsonl: the events file is gone" \
	"$OUT" "said in text"
run_mt 0 index --json
eq "$(json 'j["events"], [(r["file"], r["line"]) for r in j["refused"]]')" \
	"2 [('gone-00000000000000a1.jsonl', 0)]" "its events no more; said at its line 0"
eq "$(texts)" "['four', 'three']" "the notes of the files there"

# a rebuild keeps what the files hold, and says nothing of files gone
run_mt 0 index --rebuild --json
eq "$(json 'j["events"], len(j["refused"])')" "2 0" "the record is the file: two notes"
eq "$(texts)" "['four', 'three']" "listed"

finish
