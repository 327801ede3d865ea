# The index heals when this writer's events file is lost and made anew
# (issue 19): deleted by hand, then written again, the file is shorter
# than what the index read, or longer with other lines; the index sees it
# is not the file it read (its size, its first line) and reads it again
# from its start, never from where it stopped in the old one. It says so
# at line 0 of the file; a rebuild keeps only what the files hold.
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
eq "$(json 'j["events"]')" 7 "the 5 lines of the new file are indexed (and the 2 read before kept)"
eq "$(json '[(r["line"], "not the one read before" in r["reason"]) for r in j["refused"]]')" \
	"[(0, True)]" "said once, at line 0; no line refused"
eq "$(texts)" "['one', 'other 0', 'other 1', 'other 2', 'other 3', 'other 4', 'two']" \
	"every note listed once"
run_mt 0 index --json
eq "$(json 'j["events"], len(j["refused"])')" "7 1" "read once: nothing new the next time"

# lost, then shorter: this writer's next note starts a new file
rm "$ev"
run_mt 0 note "three"
eq "$(wc -l <"$ev" | tr -d ' ')" 1 "the file made anew holds the one note"
run_mt 0 index --json
eq "$(json 'j["events"], j["files"][0]["lines"], j["files"][0]["bytes"] == '"$(stat -c %s "$ev")")" \
	"8 1 True" "read from its start: its one line, all its bytes"
eq "$(json 'len(j["refused"]), j["refused"][0]["line"]')" "1 0" "said at line 0 again"
run_mt 0 note "four"
run_mt 0 index --json
eq "$(json 'j["events"], j["files"][0]["lines"], len(j["refused"])')" "9 2 1" \
	"the next note is read where it lands"
has "'three'" "$(texts)" "the new note listed"

# a rebuild keeps what the files hold
run_mt 0 index --rebuild --json
eq "$(json 'j["events"], len(j["refused"])')" "2 0" "the record is the file: two notes"
eq "$(texts)" "['four', 'three']" "listed"

finish
