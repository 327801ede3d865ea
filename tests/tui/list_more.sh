#!/usr/bin/env bash
# A list cut to the pane says how much is cut: "↓ N more" under it, and
# "↑ N above" once scrolled, counted from the list itself, so a cut list
# never looks complete. The rows and the marker together keep the pane's
# height, at 80x24 and at the smallest height (16), where the preview
# under the list gives way.
. "$(dirname "$0")/lib/harness.bash"

new_trial more-trial
for i in $(seq 1 20); do
	echo "mtrial:step=1 loss=2.$i tokens=4096" >"$T/r$i.log"
done
mt runs import --system candidate $(for i in $(seq 1 20); do echo "$T/r$i.log"; done) >/dev/null

start_shell 80 24
start_wizard
keys j j j Enter
check "80x24: the runs list is cut" wait_for '│ 20 attempts, newest first'
# the content pane's 20 rows: title, header, 12 runs, the marker, 5 of preview
rows=$(screen | grep -cE '│ +#[0-9]+ +candidate')
check "... $rows runs show" test "$rows" = 12
check "... and the rest is counted under them" wait_for "│   ↓ $((20 - rows)) more$"
check "... the newest first: #20 on top, #9 last" \
	test "$(screen | grep -oE '│ +#[0-9]+ ' | head -1 | tr -dc 0-9)$(screen | grep -oE '│ +#[0-9]+ ' | tail -1 | tr -dc 0-9)" = 209
check "... the preview keeps its place under the marker" wait_for '│ ── #20 candidate, '
keys G
check "G: the last run; what is above is counted" wait_for "│   ↑ $((20 - rows)) above$"
check "... and nothing below" wait_gone 'more$'
keys k k k k k k k k k k k k
check "scrolled to the middle: both" wait_for '│   ↑ [0-9]+ above  ↓ [0-9]+ more$'
above=$(screen | grep -oE '↑ [0-9]+ above' | tr -dc 0-9)
more=$(screen | grep -oE '↓ [0-9]+ more' | tr -dc 0-9)
shown=$(screen | grep -cE '│ +#[0-9]+ +candidate')
check "... above + shown + more = 20 ($above + $shown + $more)" test $((above + shown + more)) = 20
first=$(screen | grep -oE '│ +#[0-9]+ +candidate' | head -1 | tr -dc 0-9)
check "... the first row shown is the one after those above" test "$first" = $((20 - above))

tm resize-window -t "$SESSION" -x 80 -y 16
keys g
check "80x16: still cut, still counted" wait_for '│   ↓ [0-9]+ more$'
shown=$(screen | grep -cE '│ +#[0-9]+ +candidate')
more=$(screen | grep -oE '↓ [0-9]+ more' | tr -dc 0-9)
check "... shown + more = 20 ($shown + $more)" test $((shown + more)) = 20
check "... nothing past the pane: no page scroll" wait_gone ' of [0-9]+$'

tm resize-window -t "$SESSION" -x 80 -y 32
check "80x32: all 20 fit, and nothing is said" wait_for '│   #1   candidate'
check "... no marker" wait_gone '(more|above)$'

# an id wider than the column's four characters widens the column: never
# "#12…", which reads as another run
db=$REPO/.mtrial/journal.db
cols=$(sqlite3 "$db" "SELECT group_concat(name) FROM pragma_table_info('runs') WHERE name NOT IN ('id', 'uid')")
sqlite3 "$db" "INSERT INTO runs (id, $cols) SELECT 123456, $cols FROM runs WHERE id = 20"
keys R g
check "a run numbered 123456 shows its whole id" wait_for '│ +#123456 +candidate'
check "... and the others stay aligned under it" wait_for '│ +#20 +candidate'
keys q
check "q quits" wait_for '^wizard-exit=0$'
finish
