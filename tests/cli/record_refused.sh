# What the record is made of, said where a reader looks (issue 19): the
# report's Record part (events, writers, the lines of events files refused,
# the first 10 named FILE:LINE with why, then how many more; an artefact
# missing) in md, html and json, and `mtrial doctor` (a line per refused
# event, each artefact missing, a journal.db committed to git); a scan's
# result kept as an artefact named by its hash, the rest of the record
# still loading without it.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init
run_mt 0 note "first"
run_mt 0 scan
run_mt 0 report
has "$(printf '%s\n' '## Record' '2 events from 1 writers (`events/`); no line refused.')" "$OUT" \
	"a whole record says so"

# the scan's payload is an artefact the event names, gzip, named by its hash
ev=$(ls .mtrial/events/*.jsonl)
file=$(basename "$ev")
scan=$(grep '"kind":"scan.add"' "$ev")
hasnt '"calls"' "$scan" "the scan event carries no result"
OUT=$scan
ref=$(json 'j["data"]["result"]["object"]')
hex=${ref#sha256:}
obj=.mtrial/objects/sha256/${hex:0:2}/${hex:2}
eq "$(zcat "$obj" | sha256sum | cut -c1-64)" "$hex" "the result's artefact is named by its content's hash"
eq "$(zcat "$obj" | wc -c | tr -d ' ')" "$(json 'j["data"]["result"]["bytes"]')" "... and the event gives its size"

# twelve lines that are not events, one with an escape sequence
for i in $(seq 1 12); do printf 'junk %d \033]0;pwned\a\n' "$i"; done >>"$ev"
run_mt 0 report
has "2 events from 1 writers (\`events/\`); 12 lines refused, left out of every figure above" "$OUT" \
	"the report counts the refused lines"
has "- \`$file:3\`: not JSON" "$OUT" "the first named FILE:LINE with why"
has "- \`$file:12\`: not JSON" "$OUT" "... up to the tenth"
hasnt "$file:13" "$OUT" "... and no more"
has "- and 2 more" "$OUT" "the rest counted"
hasnt $'\033' "$OUT" "what the file says is made safe"
run_mt 0 report --format json
eq "$(json 'j["record"]["refused_count"], len(j["record"]["refused"]), j["record"]["refused_more"]')" \
	"12 10 2" "the model: the count, the first 10, the rest"
run_mt 0 report --format html
has "<li><code>$file:3</code>: not JSON" "$OUT" "the html names them too"
has "<li>and 2 more</li>" "$OUT" "... and counts the rest"

# the scan's artefact gone (a sync half done): named in the report and by
# doctor, the scan unknown, the rest of the record there
mv "$obj" "$T_TMP/saved"
run_mt 0 report
has "- artefact missing: \`$ref\`, the scan of event \`$(printf '%s' "$scan" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')\`" \
	"$OUT" "the report names the artefact and its event"
has "first" "$OUT" "the notes still load"
run_mt 1 doctor
has "refused   $file:3: not JSON" "$OUT" "doctor: a line per refused event"
eq "$(printf '%s\n' "$OUT" | grep -c '^  refused   ')" 12 "... every one of them"
has "missing   artefact $ref, the scan of event" "$OUT" "doctor: the missing artefact"
hasnt $'\033' "$OUT" "doctor makes what the file says safe"
hasnt "journal.db is tracked" "$OUT" "an ignored journal.db is not tracked"
mv "$T_TMP/saved" "$obj"
run_mt 0 report
hasnt "artefact missing" "$OUT" "back again: read without a rebuild"

# a journal.db committed to git: doctor says how to stop tracking it
git add -f .mtrial/journal.db
git -c user.name=t -c user.email=t@example.com commit -qm "the journal"
run_mt 1 doctor --json
eq "$(json 'j["trial"]["journal_tracked"], j["trial"]["journal_path"], len(j["trial"]["refused"])')" \
	"True .mtrial/journal.db 12" "doctor --json: tracked, where, the refused lines"
run_mt 1 doctor
has 'journal.db is tracked by git: run `git rm --cached .mtrial/journal.db`' "$OUT" \
	"doctor: the command that stops tracking it"
finish
