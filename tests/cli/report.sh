# mtrial report on a fixed trial built here (tests/data/report/fixture.sh):
# the Markdown report compared with tests/data/report/fixture.md, where only
# the times recorded as "now" and the scratch directory are masked; the HTML
# report well-formed (Python's html.parser), self-contained, escaped, in the
# same order, with its four charts; in both, each track's lines by mark and
# the file marked reusable with its note, the rehearsals listed apart as not
# evidence (drawn dashed on the quality chart), each run's padding, compile
# cache and where its devices came from; the JSON model; bad usage.
#
# After a deliberate change to the report, regenerate the expected text with
#   MTRIAL_UPDATE_EXPECTED=1 ctest -R cli/report$
# and read the diff before committing it.
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/data/report/fixture.sh"
EXPECTED=$MT_SOURCE_DIR/tests/data/report/fixture.md

day0=$(date -u +%F)
fixture_trial || { bad "the fixture trial could not be built"; finish; exit 1; }

# mask: what mtrial records as "now" (today's, or tomorrow's after midnight)
# and the scratch directory, and the cost of the failed `mtrial run` (#6):
# its attempt lasts as long as the process did (the accounting boundary),
# so it and the candidate's failed and total costs vary a little (and so
# what decide says the attempts short of the target cost); nothing else
mask() {
	sed -e "s|$T_TMP|<TMP>|g" -e "s/\\($day0\\|$(date -u +%F)\\)T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z/<NOW>/g" |
		sed -E -e '/^\| #6 first-try /s/\| [0-9.e-]+ \| [0-9.e-]+ \|  \| 16 devices/| <DH> | <COST> |  | 16 devices/' \
			-e 's/^(\| candidate \| 4 \| [^|]* \| [^|]* \| )[0-9.]+( \| [^|]* \| [^|]* \| )[0-9.]+ /\1<VARIES>\2<VARIES> /' \
			-e 's/did not reach the target cost [0-9.e+-]+ USD more/did not reach the target cost <VARIES> USD more/g'
}

# --- Markdown ------------------------------------------------------------------
run_mt 0 report
printf '%s\n' "$OUT" | mask >"$T_TMP/report.md"
if [ "${MTRIAL_UPDATE_EXPECTED:-}" = 1 ]; then
	cp "$T_TMP/report.md" "$EXPECTED"
	echo "report: wrote $EXPECTED"
fi
if diff -u "$EXPECTED" "$T_TMP/report.md" >"$T_TMP/md.diff"; then ok; else
	bad "the Markdown report differs from $EXPECTED:"; cat "$T_TMP/md.diff" >&2; fi
# the op inventory lists every distinct op it counts (both kinds of site),
# each with the count the compatibility section gives it
inv_rows=$(printf '%s\n' "$OUT" | sed -n '/^### Op inventory/,/^Findings/p' | grep -c '^| `aten::')
has "$inv_rows distinct ops (" "$OUT" "the inventory's rows are its distinct ops"
has '| `aten::to` | 2 | 0 | 2 (1) | 1 |' "$OUT" "an op seen only at method calls is listed, with its uncertain sites"
# the mask hides only what varies: the fixed runs keep their own dates
has "| 2026-01-01T00:00:00Z |" "$OUT" "fixed run dates are not masked"
# a note with markup and a pipe: the tag cannot become HTML in Markdown
has 'first compile took &lt;b>10 min&lt;/b> | cached after &lt;script>alert(1)&lt;/script>' "$OUT" "note escaped for Markdown"
hasnt "<script>" "$OUT" "no raw script tag in the Markdown"
# a name with a pipe inside a table cell does not split the row
printf '%s\n' "$OUT" | grep '^| #6 first-try ' >"$T_TMP/row6"
has 'echo "neuronx-cc: error: unsupported op" \| cat' "$(cat "$T_TMP/row6")" "the pipe in the command is escaped"
eq "$(sed 's/\\|//g' "$T_TMP/row6" | tr -cd '|' | wc -c)" 17 "the failed run's row keeps its 16 cells"

# the tracks: lines by mark, the marked file with its note (escaped), and
# the track nobody marked counted as unmarked
has "$(printf '%s\n' '- portability track (`main`..`trial`): 1 files, +2 -2 lines, 2 of them' \
	'  platform-specific and 2 generic; model code 0, harness 4, other 0 lines;' \
	'  marked reusable 4, model-specific 0, unmarked 0 lines' \
	'  - `train.py` reusable: any model needs the &lt;device> | string')" "$OUT" \
	"the portability track: lines by mark, the marked file and its note"
has "marked reusable 0, model-specific 0, unmarked 4 lines" "$OUT" "the optimized track: all unmarked"

# -o writes the same document
run_mt 0 report --format md -o "$T_TMP/out.md"
eq "$(mask <"$T_TMP/out.md")" "$(cat "$T_TMP/report.md")" "-o writes the report"

# --- HTML ------------------------------------------------------------------------
run_mt 0 report --format html -o "$T_TMP/report.html"
check "the HTML report is written" test -s "$T_TMP/report.html"
cat >"$T_TMP/wellformed.py" <<'PY'
# Tag balance of an HTML document (void elements excepted), and what a
# self-contained report must not have: scripts, external references.
import sys
from html.parser import HTMLParser
VOID = {"meta", "br", "img", "hr", "input", "link", "area", "base", "col", "wbr", "source"}
class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.svgs, self.text = [], [], 0, []
    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.errors.append("a <script> element at line %d" % self.getpos()[0])
        for k, v in attrs:
            if k in ("src", "href") or (v and ("http://" in v or "https://" in v) and k != "xmlns"):
                self.errors.append("an external reference %s=%r at line %d" % (k, v, self.getpos()[0]))
        self.svgs += tag == "svg"
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append("</%s> at line %d closes %s" % (tag, self.getpos()[0], self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()
    def handle_data(self, data):
        self.text.append(data)
c = Check()
c.feed(open(sys.argv[1], encoding="utf-8").read())
c.close()
if c.stack:
    c.errors.append("not closed: %s" % c.stack)
for e in c.errors:
    print(e)
print("svg", c.svgs)
print("text", "".join(c.text).count("<script>alert(1)</script>"))
PY
"$PY" "$T_TMP/wellformed.py" "$T_TMP/report.html" >"$T_TMP/wf.out"
eq "$(grep -v '^svg \|^text ' "$T_TMP/wf.out")" "" "the HTML is well-formed, with no script and no external reference"
eq "$(grep '^svg ' "$T_TMP/wf.out")" "svg 7" "seven inline SVG charts (quality, cost, ops, effort, break-even, scaling time and device-hours)"
eq "$(grep '^text ' "$T_TMP/wf.out")" "text 1" "the note's <script> is text, shown once as written"
HTML=$(cat "$T_TMP/report.html")
has "cached after &lt;script&gt;alert(1)&lt;/script&gt;" "$HTML" "the note is HTML-escaped"
has "<title>Migration trial: Fixture | &quot;tiny&quot; &lt;linear&gt; trial</title>" "$HTML" "the name is escaped"
# the order a reader needs: facts, verdict and caveat, then the evidence
order=$(printf '%s\n' "$HTML" | grep -no '<dt>Quality target</dt>\|<dt>Accounting boundary</dt>\|<h2>Verdict: \|Main caveat: \|<h2>Compatibility</h2>\|<h2>Correctness</h2>\|<h2>Runs</h2>\|<h2>Tracks and effort</h2>\|<h2>Friction notes\|<h2>Assumptions and omissions</h2>' | cut -d: -f2- | tr '\n' '/')
eq "$order" "<dt>Quality target</dt>/<dt>Accounting boundary</dt>/<h2>Verdict: /Main caveat: /<h2>Compatibility</h2>/<h2>Correctness</h2>/<h2>Runs</h2>/<h2>Tracks and effort</h2>/<h2>Friction notes/<h2>Assumptions and omissions</h2>/" "the HTML's order"
# the charts carry the fixture's numbers: the target line, a CPU fallback,
# the budget, the aborted run's cost
has ">target 2</text>" "$HTML" "the quality chart's target line"
has "<title>CPU fallback: 1</title>" "$HTML" "the ops chart counts the override"
has ">optimized track&#39;s budget 4 h</text>" "$HTML" "the effort chart's budget, named for the optimized track"
has ">porting-effort: 4 h for all tracks</text>" "$HTML" "... and the effort criterion, for all tracks"
check "the cost chart's failed attempts (the aborted import, 6.933 USD, and the failed run)" \
	grep -Eq '<title>candidate, failed or aborted: 6\.9[3-9][0-9]* USD</title>' <<<"$HTML"
# the tracks: lines by mark, the marked file and its note, escaped
has "harness 4, other 0 lines; marked reusable 4, model-specific 0, unmarked 0 lines" "$HTML" "HTML: the portability track's lines by mark"
has '<li><code>train.py</code> <span class="mark reusable">reusable</span>: any model needs the &lt;device&gt; | string</li>' "$HTML" "HTML: the marked file and its note"
has "marked reusable 0, model-specific 0, unmarked 4 lines" "$HTML" "HTML: the optimized track all unmarked"
# every attempt, the failed one styled as such
has '<tr class="failed"><td>#6 first-try</td>' "$HTML" "the failed attempt is listed"
# the rehearsal check apart, after the real one, its failure not shown as one
has '<h3 id="rehearsal-checks">Rehearsal checks (1): not evidence</h3>' "$HTML" "HTML: the rehearsal checks apart"
has '<tr class="rehearsal"><td>curves #2<br>' "$HTML" "HTML: the rehearsal check's row"
eq "$(printf '%s\n' "$HTML" | grep -c 'class="status FAIL">FAIL')" 0 "HTML: no check shown as a failure"
# the Markdown says the same in the same order
md_order=$(grep -no '^- \*\*Quality target:\*\*\|^- \*\*Accounting boundary:\*\*\|^## Verdict: \|^\*\*Main caveat:\*\*\|^## Compatibility\|^## Correctness\|^## Runs\|^## Tracks and effort\|^## Friction notes\|^## Assumptions and omissions' "$T_TMP/report.md" | wc -l)
eq "$md_order" 10 "the Markdown has the same sections"

# --- JSON -----------------------------------------------------------------------------
run_mt 0 report --format json
eq "$(json '[s["system"] + ":" + str(s["attempts"]) for s in j["costs"]["systems"]]')" "['baseline:2', 'candidate:4']" "costs per system"
eq "$(json 'j["decision"]["verdict"] in ("GO", "GO_WITH_CONDITIONS", "NO_GO", "NOT_ENOUGH_EVIDENCE") or j["decision"].get("error")')" True "the model holds the decision, or why there is none"
eq "$(json '"charts" in j')" False "charts are made for HTML only"
eq "$(json '[c["id"] for c in j["correctness"]["evidence"]], [(c["id"], c["verdict"]) for c in j["correctness"]["rehearsals"]], j["correctness"]["rehearsal_count"], j["correctness"]["no_evidence"], [c["rehearsal"] for c in j["checks"]]')" \
	"[1] [(2, 'FAIL')] 1 None [True, False]" "the checks: evidence, and the rehearsal apart"
eq "$(json '[s["status"] for s in j["steps"] if s["id"] == "correctness"]')" "['done']" "the correctness step is done"
eq "$(json '[(t["name"], t["marked"], t["totals"]["by_mark"]) for t in j["tracks"]]')" \
	"[('portability', [{'path': 'train.py', 'mark': 'reusable', 'note': 'any model needs the <device> | string'}], {'reusable': 4, 'model-specific': 0, 'unmarked': 0}), ('optimized', [], {'reusable': 0, 'model-specific': 0, 'unmarked': 4})]" \
	"the tracks' marks in the model"
model_tracks=$OUT
run_mt 0 tracks --json
eq "$(json '[[(f["path"], f["mark"], f["mark_note"]) for f in t["changes"]["files"] if f["mark"]] for t in j]')" \
	"$(OUT=$model_tracks json '[[(f["path"], f["mark"], f["note"]) for f in t["marked"]] for t in j["tracks"]]')" \
	"the model's marks are those of mtrial tracks"
run_mt 0 report --json
has '"costs"' "$OUT" "--json prints the model"

# a mark whose file the track no longer changes: listed as such
run_mt 0 tracks mark --track optimized train.py --model-specific --note "a kernel for this model"
sed -i 's/optimized: {base: main, head: trial,/optimized: {base: main, head: main,/' .mtrial/trial.yaml
run_mt 0 report
has "$(printf '%s\n' '- optimized track (`main`..`main`): 0 files, +0 -0 lines, 0 of them' \
	'  platform-specific and 0 generic; model code 0, harness 0, other 0 lines;' \
	'  marked reusable 0, model-specific 0, unmarked 0 lines' \
	'  - `train.py` marked model-specific but no longer changed by the track: a kernel for this model')" \
	"$OUT" "a stale mark in the Markdown"
run_mt 0 report --format html
has '<li><code>train.py</code> marked <span class="mark model-specific">model-specific</span> but no longer changed by the track: a kernel for this model</li>' \
	"$OUT" "a stale mark in the HTML"

# --- rehearsals, and each run's padding, compile cache and device source ------------
has "$(printf '%s\n' '### Rehearsals (1): not evidence' 'These runs tested the pipeline, the launcher or the log format')" \
	"$(cat "$T_TMP/report.md")" "Markdown: the rehearsals apart, said not to be evidence"
has "the rehearsals (1) are listed apart below and are not evidence" "$(cat "$T_TMP/report.md")" \
	"Markdown: the attempts' count says so"
has "| 16 devices (trial.yaml) |" "$(cat "$T_TMP/report.md")" "Markdown: where a run's devices came from"
has "| padding 41.4%; cache warm declared, cold in the log (they disagree) |" "$(cat "$T_TMP/report.md")" \
	"Markdown: the rehearsal's padding and its compile cache declared and inferred"
has '<h3 id="rehearsals">Rehearsals (1): not evidence</h3>' "$HTML" "HTML: the rehearsals apart"
has '<tr class="rehearsal success"><td>#7 CPU stand-in</td><td>candidate</td>' "$HTML" "HTML: the rehearsal's row"
has '<td>padding 41.4%; cache warm declared, cold in the log (they disagree)</td>' "$HTML" "HTML: its setup"
run_mt 0 report --format json
eq "$(json 'j["runs"]["count"], [r["id"] for r in j["runs"]["attempts"]], [r["id"] for r in j["runs"]["rehearsals"]]')" \
	"6 [1, 2, 3, 4, 5, 6] [7]" "JSON: the attempts are the evidence, the rehearsals apart"
eq "$(json '[(r["not_priced"], r["cost"], r["device_hours"], r["devices"]) for r in j["runs"]["rehearsals"]]')" \
	"[('rehearsal', None, None, None)]" "JSON: a rehearsal is not priced"
# a rehearsal with evaluations: on the quality chart, grey and dashed, named
# a rehearsal; and a baseline run with its MLPerf system description
mllog_run 1767340000000 1000 500 success 2.9 2.2 >"$L/cpu-base.log"
run_mt 0 runs import --rehearsal --system baseline "$L/cpu-base.log"
mllog_run 1767350000000 30000 900 success 2.8 1.9 >"$L/base3.log"
run_mt 0 runs import --system baseline --track portability "$L/base3.log" \
	"$MT_SOURCE_DIR/tests/data/runs/Dell_systems_XE9640x4H100-SXM-80GB.json"
run_mt 0 report --format html
has '<polyline fill="none" stroke-width="2" stroke-dasharray="6 4" points=' "$OUT" "the rehearsal's line is dashed"
has '>rehearsal: baseline</text>' "$OUT" "... and named a rehearsal in the legend"
has '<title>run #8 (rehearsal): ' "$OUT" "... and in its points' tooltips"
eq "$(printf '%s\n' "$OUT" | grep -A1 '<g class="series" stroke="#1f77b4"' | grep -c 'stroke-dasharray')" 1 \
	"... in the baseline's blue (a system keeps its colour), dashed"
run_mt 0 report
has "| 4 devices (system description Dell_systems_XE9640x4H100-SXM-80GB.json)" "$OUT" \
	"the devices of a run imported with a system description"
has "the rehearsals (2) are listed apart" "$OUT" "two rehearsals now"
has "- baseline: 3 runs," "$OUT" "the baseline's summary: its three real runs, not the rehearsal"

# --- a new trial: what trial.yaml leaves empty says so ------------------------------
# `mtrial init` inside the repository writes it as "..": the report names
# the folder too; tolerances left empty read "not set", never a blank
new_repo "$T_TMP/fresh" && (cd "$T_TMP/fresh" && "$MTRIAL" init --name fresh >/dev/null)
run_mt 0 --trial "$T_TMP/fresh/.mtrial" report
has "- **Workload:** .. (\`$T_TMP/fresh\`) at" "$OUT" "a relative repository is named with the folder it is"
has "default atol not set, rtol not set." "$OUT" "empty tolerances say they are not set"
hasnt "atol ," "$OUT" "no blank tolerance"
run_mt 0 --trial "$T_TMP/fresh/.mtrial" report --format html
has "default atol not set, rtol not set." "$OUT" "... in HTML too"

# --- bad usage ---------------------------------------------------------------------
run_mt 2 report --format pdf
has "unknown format 'pdf' (md, html or json)" "$ERR" "an unknown format is named"
run_mt 2 report extra
has "unexpected argument 'extra'" "$ERR" "a stray argument is named"
run_mt 2 report --format html -o "$T_TMP/no/such/dir/r.html"
has "$T_TMP/no/such/dir/r.html: cannot write it" "$ERR" "an output in a missing folder names the file asked, exit 2"
mkdir -p "$T_TMP/tmpl" && printf '<p>{{#runs}}\n' >"$T_TMP/tmpl/summary.html"
MTRIAL_TEMPLATE_DIR="$T_TMP/tmpl" "$MTRIAL" report --format html >/dev/null 2>"$T_TMP/err"
eq "$?" 2 "a broken HTML template exits 2"
has "summary.html:1: section 'runs' is not closed" "$(cat "$T_TMP/err")" "the broken template's line is named"

finish
