# A journal.db from an older mtrial that a team committed to git, before
# the record was events (issue 19): tests/data/journal/v12.sql, made by
# mtrial at 959ef9f (schema 12; make_v12.sh beside it says how). After the
# upgrade the record is exported to events once, the report is the same
# from the migrated index, from a rebuild and from a clone; doctor says
# journal.db is tracked and how to stop it; once it is untracked and the
# events committed, a clone sees those events, the run's log included.
. "$MT_SOURCE_DIR/tests/lib.sh"

DATA=$MT_SOURCE_DIR/tests/data/journal
R=$T_TMP/team
new_repo "$R"
cd "$R"
run_mt 0 init --name old-team
# what the old version left: trial.yaml and journal.db, no events, no
# .gitignore, all of it committed
rm -rf .mtrial/journal.db .mtrial/.gitignore .mtrial/events .mtrial/writer
sed "s|@REPO@|$R|g" "$DATA/v12.sql" | sqlite3 .mtrial/journal.db
eq "$(sqlite3 .mtrial/journal.db 'select version from schema_version')" 12 "the fixture is schema 12"
LOG=$(sqlite3 .mtrial/journal.db 'select log from runs where id = 1')
mkdir -p "$(dirname "$LOG")" && cp "$DATA/v12-run.log" "$LOG"
git add -f .mtrial
git -c user.name=t -c user.email=t@example.com commit -qm "the trial, journal.db and all"
B=$T_TMP/teammate
git clone -q "$R" "$B" # another clone of the committed journal.db
rows=$(sqlite3 .mtrial/journal.db "select (select count(*) from notes) + (select count(*) from effort)
	+ (select count(*) from scans) + (select count(*) from op_overrides) + (select count(*) from runs)
	+ (select count(*) from withdrawals)")

# --- the upgrade: exported once -------------------------------------------------
run_mt 0 notes --json
eq "$(json '[n["text"] for n in j]')" "['first compile took 10 min', 'a plain note']" \
	"the notes, the withdrawn one left out"
run_mt 0 index --json
eq "$(json 'j["events"], len(j["files"]), j["refused"]')" "$rows 1 []" "every row an event, in one file"
ev=$(ls .mtrial/events/*.jsonl)
lines=$(wc -l <"$ev")
check "the scan's result is an artefact" grep -q '"kind":"scan.add".*"result":{"object":"sha256:' "$ev"
check "... the run's log too" grep -q '"kind":"run.add".*"log_object":{"object":"sha256:' "$ev"
run_mt 0 report
mask() { sed -e "s|$1|<TRIAL>|g" -e 's/[0-9-]*T[0-9:]*Z/<TIME>/g'; }
printf '%s\n' "$OUT" | mask "$R" >"$T_TMP/migrated.md"
has "first compile took 10 min" "$OUT" "the report has the old notes"
has "$rows events from 1 writers" "$OUT" "... and says what the record is"
run_mt 0 notes
eq "$(wc -l <"$ev")" "$lines" "opened again: nothing exported twice"
# the teammate upgrades their clone on their own: the same events
(cd "$B" && "$MTRIAL" notes >/dev/null)
eq "$(sed 's/^{"v":2,"id":"\([0-9a-f]*\)".*/\1/' "$B"/.mtrial/events/*.jsonl | sort)" \
	"$(sed 's/^{"v":2,"id":"\([0-9a-f]*\)".*/\1/' "$ev" | sort)" \
	"two exports of one committed journal.db make the same events"
run_mt 0 index --rebuild
run_mt 0 report
printf '%s\n' "$OUT" | mask "$R" >"$T_TMP/rebuilt.md"
check "the report from the events alone is the same" diff -u "$T_TMP/migrated.md" "$T_TMP/rebuilt.md"

# --- doctor: journal.db is tracked ------------------------------------------------
run_mt 1 doctor
has 'journal.db is tracked by git: run `git rm --cached .mtrial/journal.db`' "$OUT" \
	"doctor says journal.db is tracked, and the command"
git rm -q --cached .mtrial/journal.db
git add .mtrial
git -c user.name=t -c user.email=t@example.com commit -qm "the record as events"
check "journal.db is ignored from now on" git check-ignore -q .mtrial/journal.db
run_mt 0 doctor
hasnt "journal.db is tracked" "$OUT" "untracked: doctor is content"

# --- a clone sees the events ---------------------------------------------------
C=$T_TMP/clone
git clone -q "$R" "$C"
check "the clone has no journal.db" test ! -e "$C/.mtrial/journal.db"
mv "$R" "$T_TMP/team.gone" # the run's log was written there: gone too
cd "$C"
run_mt 0 report
printf '%s\n' "$OUT" | mask "$C" | sed "s|$R|<TRIAL>|g" >"$T_TMP/clone.md"
check "the clone's report is the same" diff -u "$T_TMP/migrated.md" "$T_TMP/clone.md"
run_mt 0 check curves run:1 run:1 --rtol 0 --json
eq "$(json 'j["points"], j["passed"]')" "3 True" "the run's log read from its artefact on the clone"
# the teammate's events arrive (a sync): nothing twice, nothing refused
run_mt 0 index --json
before=$(json 'j["events"], len(j["files"]) + 1, j["refused"]')
cp "$B"/.mtrial/events/*.jsonl .mtrial/events/
run_mt 0 index --json
eq "$(json 'j["events"], len(j["files"]), j["refused"]')" "$before" \
	"the teammate's export, one more file, adds no event and is not refused"
run_mt 0 notes --json
eq "$(json '[n["text"] for n in j]')" "['first compile took 10 min', 'a plain note']" "no note twice"
finish
