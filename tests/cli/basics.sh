# The CLI contract: help, version, exit codes, init, notes, effort, report,
# and what bad input gets.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
HEAD=$(git -C "$R" rev-parse HEAD)

run_mt 0 --version; has "mtrial " "$OUT" "version"
run_mt 0 --help; for c in init spec note notes effort report doctor tui; do has "  $c " "$OUT" "help lists $c"; done
run_mt 0 note --help; has "Usage: mtrial note" "$OUT" "command help"
run_mt 2 frobnicate; has "unknown command 'frobnicate'" "$ERR" "unknown command"
run_mt 2 --bogus
run_mt 2 </dev/null; has "Usage: mtrial" "$ERR" "no command, no terminal: usage on stderr"

# No trial yet
cd "$R"
run_mt 2 note "hello"; has "no trial found" "$ERR" "note without a trial"
run_mt 2 notes --json; eq "$(json 'j["exit"]')" 2 "JSON error object"

# init outside a git repository
mkdir "$T_TMP/plain"
cd "$T_TMP/plain"
run_mt 2 init; has "not a git repository" "$ERR" "init outside git"
check "no trial made outside git" test ! -e "$T_TMP/plain/.mtrial"

# init
cd "$R/"
mkdir -p sub/dir
cd sub/dir
run_mt 0 init --name 'GPT: "small" #1' --json
eq "$(json 'j["trial"]')" "$R/.mtrial" "trial at repo root"
eq "$(json 'j["revision"]')" "$HEAD" "revision recorded"
check "trial.yaml" test -f "$R/.mtrial/trial.yaml"
check "journal.db" test -f "$R/.mtrial/journal.db"
has "$HEAD" "$(cat "$R/.mtrial/trial.yaml")" "template has the revision"
cp "$R/.mtrial/trial.yaml" "$T_TMP/spec.before"
run_mt 2 init; has "already holds a trial" "$ERR" "init refuses to overwrite"
# found from inside the trial's own directory too, and a trial made with
# --trial DIR from DIR and below; a lone trial.yaml is not a trial
(cd "$R/.mtrial" && run_mt 0 notes --json)
cd "$R" && run_mt 0 --trial "$T_TMP/own" init --json && cd /
mkdir -p "$T_TMP/own/deeper" && cd "$T_TMP/own/deeper"
run_mt 0 note "found from below the trial directory"
run_mt 0 --trial "$T_TMP/own" notes --json
eq "$(json 'len(j)')" 1 "a trial made with --trial DIR found from DIR/deeper"
mkdir -p "$T_TMP/lone" && cp "$R/.mtrial/trial.yaml" "$T_TMP/lone/" && cd "$T_TMP/lone"
run_mt 2 note "x"; has "no trial found" "$ERR" "a trial.yaml without a record is not a trial"
cd "$R/sub/dir"
check "spec unchanged after refused init" cmp -s "$R/.mtrial/trial.yaml" "$T_TMP/spec.before"
run_mt 0 spec --json; eq "$(json 'j["name"]')" 'GPT: "small" #1' "name round-trips"

# notes and effort, found from a subdirectory
run_mt 0 note "first note" --tag compile --tag dtype
run_mt 2 note "x" --track fast; has "unknown track 'fast'" "$ERR" "bad track"
run_mt 2 note; has "missing note TEXT" "$ERR" "note without text"
run_mt 0 effort start --track portability --category debugging chasing a NaN --json
eq "$(json 'j["category"]')" debugging "effort category"
eq "$(json 'j["text"]')" "chasing a NaN" "effort text"
run_mt 2 effort start; has "already running" "$ERR" "one timer at a time"
echo "from stdin" | "$MTRIAL" note - >/dev/null; check "note from stdin" test $? -eq 0
run_mt 0 effort status --json; eq "$(json 'j["running"]["track"]')" portability "status"
run_mt 0 effort stop
run_mt 2 effort stop; has "no effort timer is running" "$ERR" "stop twice"
run_mt 2 effort start --category coffee; has "unknown category 'coffee'" "$ERR" "bad category"
run_mt 2 effort frob; has "unknown subcommand" "$ERR" "bad subcommand"
run_mt 0 effort add --duration 1h30m --track optimized --category optimization bucketing --json
eq "$(json 'j["duration_ms"]')" 5400000 "effort add duration"
eq "$(json 'j["running"]')" False "an added interval is finished"
run_mt 2 effort add --duration 90; has "--duration '90': '90' needs a unit" "$ERR" "duration needs a unit"
run_mt 2 effort add; has "needs --duration" "$ERR" "add without duration"
run_mt 2 effort stop --duration 5m; has "goes with 'add'" "$ERR" "duration only with add"
run_mt 0 notes --json
eq "$(json 'len(j)')" 2 "two notes"
eq "$(json 'j[0]["tags"]')" "['compile', 'dtype']" "tags"
eq "$(json 'j[1]["text"]')" "from stdin" "stdin note text"
eq "$(json 'j[1]["track"]')" portability "note takes the timer's track"
eq "$(json 'j[1]["interval"] is not None')" True "note belongs to the interval"
run_mt 0 notes --tag compile --json; eq "$(json 'len(j)')" 1 "filter by tag"
run_mt 0 notes; has "first note" "$OUT" "text listing"
run_mt 0 effort log --json
eq "$(json 'len(j["intervals"])')" 2 "two intervals"
eq "$(json 'list(j["summary"]["by_track"]["portability"]["by_category"])')" "['debugging']" "log summary"
eq "$(json 'j["summary"]["by_track"]["optimized"]["by_category"]["optimization"]')" 5400000 "added time in the summary"

# --trial from elsewhere
cd "$T_TMP"
run_mt 0 --trial "$R/.mtrial" notes --json; eq "$(json 'len(j)')" 2 "--trial before the command"
run_mt 0 notes --trial "$R/.mtrial" --json; eq "$(json 'len(j)')" 2 "--trial after the command"
MTRIAL_DIR="$R/.mtrial" "$MTRIAL" notes --json >/dev/null; check "MTRIAL_DIR" test $? -eq 0
run_mt 2 --trial "$T_TMP/nowhere" notes; has "nowhere" "$ERR" "bad --trial names the path"

# report
cd "$R"
run_mt 0 report
has '# Migration trial: GPT: "small" #1' "$OUT" "report title"
has "#compile #dtype: first note" "$OUT" "report lists notes with tags"
has "- portability:" "$OUT" "report effort by track"
has '`quality_target.metric`' "$OUT" "report lists missing facts"
hasnt "{{" "$OUT" "no template markers left"
run_mt 0 report --format json; eq "$(json 'j["note_count"]')" 2 "report JSON"
eq "$(json '[s["id"] for s in j["steps"]]')" "['repository', 'ops', 'correctness', 'runs', 'effort', 'summary']" "six steps"
run_mt 0 report -o "$T_TMP/r.md"; check "report -o writes the file" grep -q "Migration trial" "$T_TMP/r.md"
run_mt 2 report --format pdf
mkdir "$T_TMP/tmpl" && printf 'custom {{trial.name}}\n{{#oops}}\n' >"$T_TMP/tmpl/summary.md"
MTRIAL_TEMPLATE_DIR="$T_TMP/tmpl" "$MTRIAL" report >/dev/null 2>"$T_TMP/err"; eq "$?" 2 "broken template exits 2"
has "summary.md:2: section 'oops' is not closed" "$(cat "$T_TMP/err")" "template error names the line"

# a malformed spec: error names line and column, exit 2, nothing changed
cp "$R/.mtrial/trial.yaml" "$T_TMP/good.yaml"
printf 'schema: 1\nname: x\nsystems:\n  baseline:\n    count: eight\n' >"$R/.mtrial/trial.yaml"
cp "$R/.mtrial/trial.yaml" "$T_TMP/bad.yaml"
run_mt 2 spec; has "trial.yaml:5:12" "$ERR" "wrong type names line:column"
run_mt 2 report; has "trial.yaml:5:12" "$ERR" "report refuses an invalid spec"
printf 'schema: 1\nname: x\nsurprise: 3\n' >"$R/.mtrial/trial.yaml"
run_mt 2 spec; has "trial.yaml:3:1" "$ERR" "unknown key names line:column"; has "surprise" "$ERR" "unknown key named"
printf 'schema: 1\nname: "x\n' >"$R/.mtrial/trial.yaml"
run_mt 2 spec; has "trial.yaml:" "$ERR" "syntax error names the file"
# notes still work and nothing was lost while the spec was broken
run_mt 0 notes --json; eq "$(json 'len(j)')" 2 "record intact with a broken spec"
cp "$T_TMP/good.yaml" "$R/.mtrial/trial.yaml"

finish
