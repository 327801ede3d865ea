# mtrial report on a trial with more notes and runs than a page holds (issue
# 18): the page keeps the newest 50 notes, with the count, the counts by
# track and tag and a working link to the list page written beside it
# (REPORT.lists.html / .md), which holds every note (counted) and every
# attempt; the attempts table keeps the failed run though newer ones exist
# (with the newest others, 10 rows in all);
# written to stdout, the page says how many it leaves out and which command
# lists them, and writes no file; the JSON keeps every note. What comes from
# outside (a note's text) is escaped in the list page as in the report.
. "$MT_SOURCE_DIR/tests/lib.sh"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name long
LOG=$MT_SOURCE_DIR/tests/data/runs/ASUSTeK_results_ESC-N8-E11_dlrm_dcnv2_result_0.txt
# 120 notes (one in three on the portability track) and 60 runs, written
# into the journal as bench/bigtrial.py does; then a failed run (#61), ten
# runs after it, and a tagged note whose text is markup
python3 "$MT_SOURCE_DIR/bench/bigtrial.py" "$MTRIAL" .mtrial "$LOG" 120 60 ||
	bad "bench/bigtrial.py failed"
run_mt 1 run --system baseline -- false
python3 - .mtrial/journal.db <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)") if r[1] not in ("id", "uid")]
for _ in range(10):
    db.execute("INSERT INTO runs (%s) SELECT %s FROM runs WHERE id = 1" % (",".join(cols), ",".join(cols)))
db.commit()
PY
run_mt 0 note --tag flaky --tag loader 'the last: <script>alert(1)</script> & "quoted" | piped'
NOTES=121
RUNS=71

# --- HTML to a file ----------------------------------------------------------
mkdir -p "$T_TMP/pages"
run_mt 0 report --format html -o "$T_TMP/pages/report.html"
P=$(cat "$T_TMP/pages/report.html")
L=$T_TMP/pages/report.lists.html
check "the list page is written beside the report" test -s "$L"
has "<h2>Friction notes ($NOTES)</h2>" "$P" "the heading counts every note"
has "Shown here: 50 of $NOTES (the newest). All $NOTES are in <a href=\"report.lists.html#notes\">report.lists.html</a>." \
	"$P" "the page says how many notes it shows and links the rest"
has "<tr><td>portability</td><td class=\"num\">40</td></tr>" "$P" "notes counted by track"
has "<tr><td>no track</td><td class=\"num\">81</td></tr>" "$P" "notes without a track counted"
has "<tr><td>#flaky</td><td class=\"num\">1</td></tr>" "$P" "notes counted by tag"
hasnt "more tags" "$P" "no tag left out of two"
has "Shown here: 10 of $RUNS" "$P" "the attempts table says how many it shows"
has "href=\"report.lists.html#attempts\"" "$P" "and links every attempt"
hasnt "<script>" "$P" "no raw script tag in the page"
has "the last: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot; | piped" "$P" \
	"the newest note is in the page, escaped"
cat >"$T_TMP/count.py" <<'PY'
# Prints: the <li> in section#notes; the rows of the first table of class
# "attempts wide", then their first cells; "balanced" or "unbalanced" (tag
# balance, void elements excepted); the ids the links can point at.
import sys
from html.parser import HTMLParser
VOID = {"meta", "br", "img", "hr", "input", "link", "area", "base", "col", "wbr", "source"}
class Count(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.notes, self.rows = [], [], 0, []
        self.section = self.table = None
        self.tables = 0
        self.balanced = True
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "section":
            self.section = a.get("id")
        if tag == "table":
            self.table = a.get("class")
            self.tables += self.table == "attempts wide"
        if tag == "li" and self.section == "notes" and "ul" in self.stack:
            self.notes += 1
        if tag == "tr" and "tbody" in self.stack and self.table == "attempts wide" and self.tables == 1:
            self.rows.append("")
            self.cell = True
        if tag not in VOID:
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if tag == "td":
            self.cell = False
        if not self.stack or self.stack[-1] != tag:
            self.balanced = False
            return
        self.stack.pop()
        if tag == "section":
            self.section = None
        if tag == "table":
            self.table = None
    def handle_data(self, data):
        if self.rows and getattr(self, "cell", False):
            self.rows[-1] += data.strip()
c = Count()
c.feed(open(sys.argv[1], encoding="utf-8").read())
ok = c.balanced and not c.stack
print(c.notes, len(c.rows), " ".join(c.rows), "balanced" if ok else "unbalanced", " ".join(c.ids))
PY
page=$(python3 "$T_TMP/count.py" "$T_TMP/pages/report.html")
list=$(python3 "$T_TMP/count.py" "$L")
eq "$(echo "$page" | cut -d' ' -f1)" 50 "the page holds the newest 50 notes"
eq "$(echo "$page" | cut -d' ' -f2)" 10 "the page's attempts table holds 10 rows"
has "#61" "$(echo "$page" | cut -d' ' -f3-)" "the failed run is in the page's attempts table"
has "#71" "$page" "the newest run is in the page's attempts table"
has " #63 " "$page" "and the nine newest after the failed one"
hasnt " #62 " "$page " "an older successful run is not"
has "balanced" "$page" "the page is well-formed"
eq "$(echo "$list" | cut -d' ' -f1)" $NOTES "the list page holds every note"
eq "$(echo "$list" | cut -d' ' -f2)" $RUNS "the list page holds every attempt"
has "balanced" "$list" "the list page is well-formed"
has " notes" "$list" "the list page has the notes' anchor"
has " attempts" "$list" "the list page has the attempts' anchor"
for i in 0 1 60 119; do
	has ": note $i: the loss spiked" "$(cat "$L")" "note $i is in the list page"
done
has "the last: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot; | piped" "$(cat "$L")" \
	"the list page escapes a note's markup"
hasnt "<script>" "$(cat "$L")" "no raw script tag in the list page"
has "<p>$NOTES notes, oldest first.</p>" "$(cat "$L")" "the list page counts its notes"
has "<a href=\"report.html\">report.html</a>" "$(cat "$L")" "the list page links back to the report"

# --- Markdown to a file --------------------------------------------------------
run_mt 0 report -o "$T_TMP/pages/report.md"
M=$(cat "$T_TMP/pages/report.md")
LM=$T_TMP/pages/report.lists.md
has "Shown here: 50 of $NOTES (the newest). All $NOTES are in [report.lists.md](report.lists.md#notes)." \
	"$M" "the Markdown page links the list page"
eq "$(sed -n '/^## Friction notes/,/^## /p' "$T_TMP/pages/report.md" | grep -c '^- ')" 50 \
	"the Markdown page holds the newest 50 notes"
eq "$(sed -n '/^## Notes$/,$p' "$LM" | grep -c '^- ')" $NOTES "the Markdown list page holds every note"
eq "$(sed -n '/^## Attempts$/,/^## /p' "$LM" | grep -c '^| #')" $RUNS "and every attempt"
has 'the last: &lt;script>alert(1)&lt;/script> & "quoted" | piped' "$(cat "$LM")" \
	"the Markdown list page escapes a note's markup"

# --- to stdout: nothing written, nothing dropped silently ----------------------
mkdir "$T_TMP/cwd" && cd "$T_TMP/cwd"
run_mt 0 --trial "$R/.mtrial" report --format html
has "Shown here: 50 of $NOTES (the newest). <code>mtrial notes</code> lists them all." "$OUT" \
	"to stdout the page names the command listing every note"
has "Shown here: 10 of $RUNS" "$OUT" "and says how many attempts it shows"
has "<code>mtrial runs</code> lists them all." "$OUT" "and the command listing them"
hasnt "lists.html" "$OUT" "no link to a list page that was not written"
run_mt 0 --trial "$R/.mtrial" report
has "Shown here: 50 of $NOTES (the newest). \`mtrial notes\` lists them all." "$OUT" \
	"the Markdown to stdout says the same"
eq "$(ls -A "$T_TMP/cwd")" "" "nothing written beside a report sent to stdout"
run_mt 0 --trial "$R/.mtrial" notes --json
eq "$(json 'len(j)')" $NOTES "mtrial notes lists every note"

# --- the JSON keeps everything ---------------------------------------------------
run_mt 0 --trial "$R/.mtrial" report --format json
eq "$(json 'len(j["notes"])')" $NOTES "the JSON holds every note"
eq "$(json 'j["note_count"]')" $NOTES "and counts them"
eq "$(json 'len(j["runs"]["attempts"])')" $RUNS "and every attempt"
hasnt '"lists"' "$OUT" "the JSON has no summary of what a page leaves out"
finish
