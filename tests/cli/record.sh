# What the trial record accepts and keeps: trial.yaml's ranges and rules
# (file:line:column, exit 2, everywhere the spec is loaded), shortest
# numbers in JSON, durations as people write them, withdrawing a mistaken
# record (kept, with who and why, and out of every figure), and a trial that
# travels with a clone of its repository.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name rec
S=$R/.mtrial/trial.yaml
cp "$S" "$T_TMP/spec.orig"

# --- trial.yaml: ranges and rules between fields, at file:line:column ---
spec_with() { # KEY-SECTION YAML: the original template, one top-level section replaced
	python3 - "$T_TMP/spec.orig" "$S" "$1" "$2" <<'PY'
import sys, re
src, dst, key, body = sys.argv[1:]
text = open(src).read()
# drop the section's lines (key line and its indented children)
out, skip = [], False
for line in text.splitlines(True):
    if re.match(r"^%s:" % re.escape(key), line):
        skip = True
        continue
    if skip and (line.startswith(" ") or line.startswith("#") and line.startswith("  ")):
        continue
    skip = False
    out.append(line)
open(dst, "w").write("".join(out) + body)
PY
}
line_of() { grep -n "$1" "$S" | head -1 | cut -d: -f1; }

spec_with topology $'topology:\n  devices: 9223372036854775807\n'
L=$(line_of "devices: 9223")
run_mt 2 spec; has "trial.yaml:$L:12: 'topology.devices' is out of range: 9223372036854775807 (expected 1 to 2147483647)" "$ERR" "devices out of range, not 'must be an integer'"
spec_with topology $'topology:\n  hosts: 0\n'
run_mt 2 spec; has "'topology.hosts' is out of range: 0" "$ERR" "hosts: 0"
run_mt 2 decide; has "'topology.hosts' is out of range" "$ERR" "decide refuses it too"
run_mt 2 tracks; has "'topology.hosts' is out of range" "$ERR" "tracks refuses it too"
spec_with tolerances $'tolerances:\n  default:\n    atol: -1\n'
L=$(line_of "atol: -1")
run_mt 2 spec; has "trial.yaml:$L:11: 'tolerances.default.atol' is out of range: -1 (expected 0 or more)" "$ERR" "negative atol"
spec_with criteria $'criteria:\n  - name: fast\n    kind: time_to_quality\n  - name: fast\n    kind: cost_to_quality\n'
L=$(grep -n "name: fast" "$S" | tail -1 | cut -d: -f1)
run_mt 2 spec --json; has "trial.yaml:$L:11: 'criteria.1.name' is 'fast', already the name of criteria.0" "$ERR" "duplicate criterion names"
eq "$(json 'j["exit"]')" 2 "JSON error object for a bad spec"
spec_with topology $'topology:\n  global_batch: 256\n  micro_batch: 8\n  parallelism:\n    data: 4\n  gradient_accumulation: 4\n'
L=$(line_of "global_batch: 256")
run_mt 2 spec; has "trial.yaml:$L:17: 'topology.global_batch' is 256, but micro_batch x data x gradient_accumulation = 8 x 4 x 4 is not that" "$ERR" "global_batch contradicts its factors"
spec_with probe $'probe:\n  table: "Neuron 2.14!"\n'
run_mt 2 spec; has "'probe.table' is 'Neuron 2.14!': no table can have that name" "$ERR" "impossible table name"
spec_with probe $'probe:\n  table: torchneuron-9.99\n'
L=$(line_of "table: torchneuron-9.99")
run_mt 0 spec; has "warning: $S:$L:10: probe.table 'torchneuron-9.99' is neither bundled nor imported here" "$ERR" "unknown table: a warning naming the line"
run_mt 0 spec --json; has "torchneuron-9.99" "$(json 'j.get("warnings")')" "the warning in --json"
spec_with probe $'probe:\n  table: torchneuron-2.14\n'
run_mt 0 spec; hasnt "warning" "$ERR" "a bundled table: no warning"

# --- shortest round-trip numbers in every JSON output ---
spec_with systems $'systems:\n  candidate:\n    price:\n      hourly: 262.16\n'
run_mt 0 spec --json
has '"hourly": 262.16' "$OUT" "262.16, not 262.16000000000003"
hasnt "262.1600000" "$OUT" "no binary noise"
cp "$T_TMP/spec.orig" "$S"

# --- durations ---
run_mt 0 effort add --duration 1.5h --json; eq "$(json 'j["duration_ms"]')" 5400000 "1.5h"
run_mt 0 effort add --duration "1h 30m" --json; eq "$(json 'j["duration_ms"]')" 5400000 "1h 30m"
run_mt 0 effort add --duration 0.5m --json; eq "$(json 'j["duration_ms"]')" 30000 "0.5m"
run_mt 2 effort add --duration -1h; has "--duration '-1h': a duration cannot be negative" "$ERR" "negative duration"
run_mt 2 effort add --duration 1.5; has "--duration '1.5': '1.5' needs a unit" "$ERR" "no unit"
run_mt 2 effort add --duration 9999999999999999h; has "--duration '9999999999999999h' is too long" "$ERR" "overflow"
run_mt 2 effort add --duration 8d; has "--duration '8d'" "$ERR" "garbage"
run_mt 2 effort add --duration 200h; has "at most a week" "$ERR" "over a week"

# --- an override of an op libtorch's registry lacks: recorded, with a warning ---
run_mt 0 override aten::foo_bar device --note "seen on 2.99" --json
has "aten::foo_bar is not in the operator registry of libtorch" "$(json 'j["warning"]')" "warning in --json"
has "warning: aten::foo_bar is not in the operator registry" "$ERR" "warning on stderr"
F=$(json 'j["id"]')
run_mt 0 override aten::foo_bar.out cpu_fallback --note "an overload of it"
has "warning: aten::foo_bar is not" "$ERR" "an overload is judged by its base name"
run_mt 0 override aten::add.Tensor device --note "fine" --json
eq "$(json 'j["warning"]')" None "a registered op: no warning"
run_mt 0 override --json; has "aten::foo_bar" "$(json '[o["op"] for o in j]')" "recorded all the same"
for id in $(json '" ".join(str(o["id"]) for o in j)'); do "$MTRIAL" rm override "$id" --why "test" >/dev/null; done

# --- withdrawing a mistaken record ---
export USER=ada
run_mt 0 effort log --json; E=$(json 'j["intervals"][0]["id"]')
run_mt 0 note "typo note"; run_mt 0 notes --json; N=$(json 'j[0]["id"]')
run_mt 0 override aten::add device --note "wrong op" --json; O=$(json 'j["id"]')
run_mt 2 rm run 1; has "--why TEXT is required" "$ERR" "why is required"
run_mt 2 rm scan 1 --why x; has "unknown kind 'scan'" "$ERR" "unknown kind"
run_mt 2 rm note abc --why x; has "ID 'abc' is not a record id" "$ERR" "bad id"
run_mt 2 rm note 99999999999999999999 --why x; has "ID '99999999999999999999' is not a record id" "$ERR" "an id past int64 is no id"
run_mt 2 rm note 999 --why x; has "no note #999" "$ERR" "missing record"
run_mt 0 effort log --json; before=$(json 'j["summary"]["total_ms"]')
run_mt 0 rm effort "$E" --why "logged twice" --json; eq "$(json 'j["who"]')" "$(git config user.name 2>/dev/null || echo ada)" "who"
run_mt 0 effort log --json; after=$(json 'j["summary"]["total_ms"]')
eq "$((before - after))" 5400000 "a withdrawn interval leaves the effort total"
run_mt 0 rm note "$N" --why "typo"
run_mt 0 notes --json; eq "$(json 'len(j)')" 0 "a withdrawn note leaves the notes"
run_mt 0 rm override "$O" --why "wrong op"
run_mt 0 override --json; eq "$(json 'len(j)')" 0 "a withdrawn override leaves the overrides"
run_mt 2 rm override "$O" --why "again"; has "already withdrawn" "$ERR" "withdrawn once"
run_mt 0 rm --list --json
eq "$(json 'len(j)')" 6 "withdrawals listed apart"
eq "$(json 'j[5]["why"]')" "wrong op" "why kept"
eq "$(json 'j[5]["what"]')" "aten::add device: wrong op" "what was withdrawn"
run_mt 0 rm --list; has "why: logged twice" "$OUT" "text listing says why"
run_mt 0 report --format md
has "- note #$N (typo note), withdrawn " "$OUT" "the report lists the withdrawn note"
has ": typo" "$OUT" "with why"
hasnt "- 20"*": typo note" "$OUT" "and leaves it out of the friction notes"
run_mt 0 report --format json; eq "$(json 'len(j["withdrawn"])')" 6 "the report model holds the withdrawals"
eq "$(json 'j["note_count"]')" 0 "no note counted"
check "the journal keeps the withdrawn note" sh -c "sqlite3 '$R/.mtrial/journal.db' 'select count(*) from notes' | grep -qx 1"

# --- a trial travels with its repository ---
has "repository: \"..\"" "$(cat "$S")" "init writes the repository relative to the trial"
run_mt 0 spec --json; eq "$(json 'j["workload"]["repository"]')" ".." "spec keeps it as written"
spec_with tracks $'tracks:\n  portability:\n    base: HEAD~1\n    head: HEAD\n'
git -C "$R" add .mtrial
git -C "$R" -c user.name=t -c user.email=t@example.com commit -qm trial
C=$T_TMP/clone
git clone -q "$R" "$C"
cd "$C"
run_mt 0 init --trial "$T_TMP/elsewhere" --json
has "repository: \"$C\"" "$(cat "$T_TMP/elsewhere/trial.yaml")" "a trial outside the repository keeps the absolute path"
run_mt 0 --trial "$C/.mtrial" tracks --json
# the record is events/ (one file a writer); journal.db, its index, stays local
eq "$(json '[f["path"] if not f["path"].startswith(".mtrial/events/") else "EVENTS" for f in j[0]["changes"]["files"]]')" \
	"['.mtrial/.gitignore', 'EVENTS', '.mtrial/trial.yaml']" "tracks diff the clone, found through '..'"
check "the clone made its index from the events" test -f "$C/.mtrial/journal.db"
run_mt 0 --trial "$C/.mtrial" rm --list --json
eq "$(json 'len(j)')" 6 "and holds the withdrawals made in the first repository"
echo "x = 1" >>"$C/train.py"; git -C "$C" -c user.name=t -c user.email=t@example.com commit -qam local
run_mt 0 --trial "$C/.mtrial" tracks --json
eq "$(json '[f["path"] for f in j[0]["changes"]["files"]]')" "['train.py']" "the clone's own commits, not the original's"
run_mt 0 scan --json; eq "$(json 'j["repo"]')" "$C" "scan in the clone"

finish
