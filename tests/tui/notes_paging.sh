#!/usr/bin/env bash
# A trial of many notes (5,000, written straight into the journal as
# bench/bigtrial.py does) opens on its newest notes; the wizard reads
# older ones a page at a time as the reader scrolls on (PgDn, j), and a
# note added from another terminal shows after the reload (issue 18).
. "$(dirname "$0")/lib/harness.bash"

new_trial notes-trial
mt note "the first note, from the CLI" >/dev/null
python3 - "$REPO/.mtrial/journal.db" <<'PY' || { fail "the notes could not be written"; finish; }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany("INSERT INTO notes (created_ms, track, text) VALUES (?, ?, ?)",
               ((1764547200000 + i * 1000, None, "bulk note %d" % i) for i in range(2, 5001)))
db.commit()
PY
start_shell 80 24
start_wizard

keys j j j j
check "the step is open" wait_for '│ Tracks & effort \(partial\)'
check "the notes are counted, all 5,000 of them" wait_for '│ Friction notes \(5000, newest first\)'
check "the newest note shows first" wait_for '│   #5000 [0-9-]+ [0-9:]+  no track$'
check "... with its text" wait_for '│      bulk note 5000$'
check "only a page is read: the page is far shorter than 5,000 notes" \
	wait_for 'Tracks & effort \(partial\) +↓ 1-20 of [0-9]{2,3}$'

keys Enter
for _ in $(seq 12); do keys NPage; done
check "PgDn reaches notes older than the first page" wait_for '│   #48[0-9]{2} '
for _ in $(seq 30); do keys NPage; done
check "... and, a page at a time, older still" wait_for "│   #4[0-7][0-9]{2} "
check "... the page grew as it went: more than the first page's lines" \
	wait_for ' of ([5-9][0-9]{2}|[0-9]{4})$'
keys j j j
check "j scrolls on as well" wait_for '│   #4[0-9]{3} '

mt note "written in another terminal" >/dev/null
check "a note from another terminal is said" wait_for '1 new note from another terminal' 15
keys g
check "... counted" wait_for '│ Friction notes \(5001, newest first\)'
check "... and shown at the top" wait_for '│      written in another terminal$'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
