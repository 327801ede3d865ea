# mtrial bundle (issue 20, part 2) on the report's fixture trial: what the
# bundle holds (MANIFEST first, the record, every run's log, checks, the
# environment, the tracks' patches, the report), verify, and init
# --from-bundle: decide --json and the Markdown report there equal the
# originals but for the line saying where the report was made, with the
# repository gone too (the tracks' changes are carried); the copy is read-only. Then bundles refused, named,
# exit 2, nothing extracted: a byte flipped in an entry (manifest) or in a
# header (tar checksum), a size that does not match, an entry missing or
# not listed, traversing names ('..', absolute, a symlink), truncated
# gzip and tar. Last --redact: the private note, the host name and the
# absolute paths gone from every file and artefact, and said; the copy
# whole (tests/cli/bundle_redact.sh: a new user's trial).
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/data/report/fixture.sh"

fixture_trial || { bad "the fixture trial could not be built"; finish; exit 1; }
HOST=$(hostname)
"$MTRIAL" note --tag private "keys are in /home/someone/secret/keys.txt on $HOST" >/dev/null ||
	bad "the private note"
B=$T_TMP/b.tar.gz

# --- writing --------------------------------------------------------------------
run_mt 2 bundle
has "missing -o" "$ERR" "-o is required"
# a folder that is not there: the file asked is named, not a temporary one
run_mt 2 bundle -o "$T_TMP/no/such/dir/b.tar.gz"
has "$T_TMP/no/such/dir/b.tar.gz: cannot write it" "$ERR" "an output in a missing folder: named, exit 2"
run_mt 2 report -o "$T_TMP/no/such/dir/r.md"
has "$T_TMP/no/such/dir/r.md: cannot write it" "$ERR" "... as the report's is"
run_mt 0 bundle -o "$B" --json
eq "$(json 'j["logs"], j["logs_missing"], j["tracks"], j["redacted"]')" "7 0 2 None" "every run's log and both tracks' patches"
names=$(python3 -c 'import sys,tarfile; print("\n".join(tarfile.open(sys.argv[1]).getnames()))' "$B")
eq "$(printf '%s\n' "$names" | head -1)" "MANIFEST" "MANIFEST is the first entry"
for n in FORMAT trial.yaml checks.json environment.json logs/1-baseline.log logs/6-candidate.log \
	tracks/portability.patch tracks/optimized.patch tracks/portability.json report.md report.html; do
	has "$n" "$names" "the bundle holds $n"
done
check "the record's events file" sh -c "printf '%s\n' \"\$1\" | grep -q '^record/events/.*\.jsonl$'" _ "$names"
mkdir -p "$T_TMP/x" && tar xzf "$B" -C "$T_TMP/x"
check "trial.yaml as it is" cmp -s "$T_TMP/x/trial.yaml" .mtrial/trial.yaml
check "a log as it was" cmp -s "$T_TMP/x/logs/1-baseline.log" "$L/base1.log"
check "the events file as it is" cmp -s "$T_TMP/x/record/events/"*.jsonl .mtrial/events/*.jsonl
has '+device = torch.device("neuron")' "$(cat "$T_TMP/x/tracks/portability.patch")" "the track's patch"
has '"candidate"' "$(cat "$T_TMP/x/environment.json")" "the environment by system"
(cd "$T_TMP/x" && sha256sum $(sed 's/.*  //' MANIFEST) | awk '{print $1}') >"$T_TMP/sums"
eq "$(awk '{print $1}' "$T_TMP/x/MANIFEST")" "$(cat "$T_TMP/sums")" "the manifest's sha256 are the files'"
eq "$(sed 's/.*  //' "$T_TMP/x/MANIFEST" | LC_ALL=C sort -c && echo sorted)" "sorted" "the manifest is sorted"

# --- verify and the copy --------------------------------------------------------
run_mt 0 bundle verify "$B"
has "verified" "$OUT" "verify says so"
run_mt 0 bundle verify "$B" --json
eq "$(json 'j["verified"], j["logs"]')" "True 7" "verify --json"
C=$T_TMP/copy
run_mt 0 init --from-bundle "$B" "$C"
has "read-only" "$OUT" "init says the copy is read-only"
"$MTRIAL" decide --json >"$T_TMP/d1.json" 2>/dev/null
"$MTRIAL" --trial "$C" decide --json >"$T_TMP/d2.json" 2>/dev/null
check "decide --json equal in the copy" cmp -s "$T_TMP/d1.json" "$T_TMP/d2.json"
(cd "$C" && "$MTRIAL" decide --json) >"$T_TMP/d2cd.json" 2>"$T_TMP/d2cd.err"
check "cd DIR && mtrial decide finds the trial made from the bundle" cmp -s "$T_TMP/d1.json" "$T_TMP/d2cd.json"
(cd "$C/events" && "$MTRIAL" decide --json) >"$T_TMP/d2ev.json" 2>/dev/null
check "... and from a directory inside it" cmp -s "$T_TMP/d1.json" "$T_TMP/d2ev.json"
check "decide says something" test -s "$T_TMP/d1.json"
"$MTRIAL" report --format md >"$T_TMP/r1.md"
"$MTRIAL" --trial "$C" report --format md >"$T_TMP/r2.md"
diff "$T_TMP/r1.md" "$T_TMP/r2.md" >"$T_TMP/r.diff"
eq "$(grep -c '^[<>]' "$T_TMP/r.diff")" 2 "the reports differ in one line"
eq "$(grep '^[<>]' "$T_TMP/r.diff" | grep -vc '^[<>] Generated .* from the record in ')" 0 \
	"the line saying where the report was made"

# read-only: every record command refuses, nothing is appended
sum_before=$(cat "$C"/events/*.jsonl | sha256sum)
run_mt 2 --trial "$C" note "a note in the copy"
has "this trial was made from bundle b.tar.gz: read-only" "$ERR" "note refused, naming the bundle"
run_mt 2 --trial "$C" runs import "$L/base1.log" --system baseline
has "read-only" "$ERR" "runs import refused"
hasnt "this log is run" "$ERR" "... as read-only, before its log is compared with the record's"
objects_before=$(find "$C/objects" -type f | sort | sha256sum)
{ cat "$L/base1.log"; echo "another attempt"; } >"$T_TMP/new-in-copy.log"
run_mt 2 --trial "$C" runs import "$T_TMP/new-in-copy.log" --system baseline
has "read-only" "$ERR" "a new log's import refused"
eq "$(find "$C/objects" -type f | sort | sha256sum)" "$objects_before" "... and no artefact stored in the copy"
run_mt 2 --trial "$C" effort add --duration 1h
has "read-only" "$ERR" "effort refused"
eq "$(cat "$C"/events/*.jsonl | sha256sum)" "$sum_before" "the copy's record unchanged"

# the repository absent (the usual case for a reader): decide and report still
C2=$T_TMP/copy2
mkdir "$C2"
run_mt 0 init --from-bundle "$B" "$C2" # an empty directory is fine
mv "$R" "$R.away" && mv "$L" "$L.away" # and the logs: read from the bundle's copies
"$MTRIAL" --trial "$C2" decide --json >"$T_TMP/d3.json" 2>/dev/null
check "decide --json equal without the repository" cmp -s "$T_TMP/d1.json" "$T_TMP/d3.json"
run_mt 0 --trial "$C2" report --format md
printf '%s\n' "$OUT" | diff "$T_TMP/r1.md" - >"$T_TMP/r3.diff"
eq "$(grep '^[<>]' "$T_TMP/r3.diff" | grep -vc '^[<>] Generated .* from the record in ')" 0 \
	"the report equal without the repository and the logs: the bundle carries them"
has "No bucket advice: run 3: its log gives no sequence length" "$OUT" "a figure read from the bundle's log"
has "marked reusable 4" "$OUT" "the track's marks on the carried changes"
mv "$R.away" "$R" && mv "$L.away" "$L"
run_mt 2 init --from-bundle "$B" "$C2"
has "not empty" "$ERR" "a directory that is not empty is refused"

# a trial as `mtrial init` writes it, its repository relative (".."): the
# copy, elsewhere, reads it as the writer did, and the report says the same
N=$T_TMP/n
new_repo "$N"
(cd "$N" && "$MTRIAL" init >/dev/null && "$MTRIAL" note "a note" >/dev/null &&
	"$MTRIAL" bundle -o "$T_TMP/n.tar.gz" >/dev/null) || bad "the plain trial's bundle"
run_mt 0 init --from-bundle "$T_TMP/n.tar.gz" "$T_TMP/elsewhere/n"
"$MTRIAL" --trial "$N/.mtrial" report --format md >"$T_TMP/n1.md"
"$MTRIAL" --trial "$T_TMP/elsewhere/n" report --format md >"$T_TMP/n2.md"
diff "$T_TMP/n1.md" "$T_TMP/n2.md" >"$T_TMP/n.diff"
eq "$(grep '^[<>]' "$T_TMP/n.diff" | grep -vc '^[<>] Generated .* from the record in ')" 0 \
	"a relative repository reads as the writer read it"
has "$N" "$(cat "$T_TMP/n2.md")" "the writer's repository named"

# --- refusals: named, exit 2, nothing extracted -------------------------------------
# craft KIND OUT: a bundle with one fault, made from the good one
craft() {
	python3 - "$B" "$2" "$1" <<'PY'
import gzip, io, sys, tarfile
src, out, kind = sys.argv[1:4]
raw = bytearray(gzip.decompress(open(src, "rb").read()))
def gz(data): return gzip.compress(bytes(data))
def member(name, data, **kw):
    ti = tarfile.TarInfo(name); ti.size = len(data)
    for k, v in kw.items(): setattr(ti, k, v)
    return ti, io.BytesIO(data)
def rebuild(extra=(), drop=(), manifest=None, link=None):
    tin = tarfile.open(fileobj=io.BytesIO(bytes(raw)))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for m in tin.getmembers():
            if m.name in drop: continue
            data = tin.extractfile(m).read()
            if m.name == "MANIFEST" and manifest: data = manifest(data)
            t.addfile(*member(m.name, data))
        for name, data in extra: t.addfile(*member(name, data))
        if link:
            ti = tarfile.TarInfo(link); ti.type = tarfile.SYMTYPE; ti.linkname = "/etc/passwd"
            t.addfile(ti)
    return buf.getvalue()
tin = tarfile.open(fileobj=io.BytesIO(bytes(raw)))
if kind == "data":  # a byte of report.md's text
    raw[tin.getmember("report.md").offset_data + 10] ^= 1; open(out, "wb").write(gz(raw))
elif kind == "header":  # the mtime field of the second entry's header
    raw[tin.getmembers()[1].offset + 140] ^= 1; open(out, "wb").write(gz(raw))
elif kind == "size":
    def m(d):
        lines = d.decode().splitlines(True)
        h, s, n = lines[1].split("  "); lines[1] = "  ".join([h, str(int(s) + 1), n])
        return "".join(lines).encode()
    open(out, "wb").write(gz(rebuild(manifest=m)))
elif kind == "missing": open(out, "wb").write(gz(rebuild(drop=("checks.json",))))
elif kind == "extra": open(out, "wb").write(gz(rebuild(extra=(("extra.txt", b"x"),))))
elif kind == "dotdot": open(out, "wb").write(gz(rebuild(extra=(("../evil", b"x"),))))
elif kind == "absolute": open(out, "wb").write(gz(rebuild(extra=(("/tmp/evil-abs", b"x"),))))
elif kind == "symlink": open(out, "wb").write(gz(rebuild(link="logs/evil")))
elif kind == "gztrunc": d = open(src, "rb").read(); open(out, "wb").write(d[: len(d) // 2])
elif kind == "tartrunc": open(out, "wb").write(gz(raw[:2000]))
elif kind == "sneaky":  # listed, so it verifies: entries no trial directory takes
    import hashlib
    extra = ((b"record/journal.db", b"SQLite format 3\0junk"), (b"record/writer", b"evil-0\n"))
    def m(d):
        lines = d.decode().splitlines(True) + ["%s  %d  %s\n" % (hashlib.sha256(v).hexdigest(), len(v), k.decode()) for k, v in extra]
        return "".join(sorted(lines, key=lambda l: l.split("  ", 2)[2].encode())).encode()
    open(out, "wb").write(gz(rebuild(manifest=m, extra=[(k.decode(), v) for k, v in extra])))
elif kind == "crc":
    d = bytearray(open(src, "rb").read()); d[-8] ^= 1; open(out, "wb").write(bytes(d))
PY
}
# refused KIND TEXT DESCRIPTION: verify and init both refuse, naming it;
# init leaves no directory behind
refused() {
	craft "$1" "$T_TMP/bad-$1.tar.gz" || { bad "could not craft $1"; return; }
	run_mt 2 bundle verify "$T_TMP/bad-$1.tar.gz"
	has "$2" "$ERR" "$3 (verify)"
	run_mt 2 init --from-bundle "$T_TMP/bad-$1.tar.gz" "$T_TMP/out-$1"
	has "$2" "$ERR" "$3 (init)"
	check "$3: nothing extracted" test ! -e "$T_TMP/out-$1"
}
refused data "entry 'report.md': sha256" "a byte flipped inside an entry"
refused header "header's checksum" "a byte flipped in a header"
refused size "bytes, the manifest says" "a size that does not match"
refused missing "entry 'checks.json': listed in the manifest, missing" "an entry missing"
refused extra "entry 'extra.txt': not in the manifest" "an entry not listed"
refused dotdot "'..'" "a name with .."
refused absolute "an absolute path" "an absolute name"
refused symlink "symlink" "a symlink"
refused gztrunc "gzip" "a truncated gzip stream"
refused tartrunc "truncated" "a truncated tar stream"
refused crc "gzip" "a CRC that does not match"
craft sneaky "$T_TMP/sneaky.tar.gz"
run_mt 0 bundle verify "$T_TMP/sneaky.tar.gz"
run_mt 0 init --from-bundle "$T_TMP/sneaky.tar.gz" "$T_TMP/sneaky"
check "a journal.db in the bundle is not the index" sh -c "! grep -q junk '$T_TMP/sneaky/journal.db'"
check "nor is its writer taken" test ! -e "$T_TMP/sneaky/writer"
check "nothing escaped the directory" test ! -e "$T_TMP/evil"
check "nothing written at the absolute name" test ! -e /tmp/evil-abs
run_mt 2 bundle verify "$T_TMP/absent.tar.gz"

# --- --redact ------------------------------------------------------------------------
RB=$T_TMP/red.tar.gz
run_mt 0 bundle -o "$RB" --redact --json
eq "$(json 'j["redacted"]["private_note_events"]')" 1 "one private note left out"
check "host names replaced" test "$(json 'j["redacted"]["host_names"]')" -gt 0
check "absolute paths replaced" test "$(json 'j["redacted"]["absolute_paths"]')" -gt 0
run_mt 0 bundle -o "$RB" --redact
has "private notes dropped" "$OUT" "the redaction said in words"
run_mt 0 bundle verify "$RB"
mkdir -p "$T_TMP/rx" && tar xzf "$RB" -C "$T_TMP/rx"
for f in $(find "$T_TMP/rx/record/objects" -type f); do zcat "$f" >"$f.inflated"; done
check "the artefacts carried, redacted" test "$(find "$T_TMP/rx/record/objects" -name '*.inflated' | wc -l)" -gt 0
hostre="(?<![A-Za-z0-9_.-])$HOST(?![A-Za-z0-9_-]|\.[A-Za-z0-9])"
check "no host name anywhere in the bundle" sh -c "! grep -rqP -- '$hostre' '$T_TMP/rx'"
check "no scratch path anywhere in the bundle" sh -c "! grep -rq -- '$T_TMP' '$T_TMP/rx'"
check "the private note is gone" sh -c "! grep -rq 'keys are in' '$T_TMP/rx'"
has '{path}/base1.log' "$(cat "$T_TMP/rx/record/events/"*.jsonl)" "a log's path keeps its file name"
has 'first compile took' "$(cat "$T_TMP/rx/report.md")" "other notes stay"
run_mt 0 init --from-bundle "$RB" "$T_TMP/rcopy"
run_mt 0 --trial "$T_TMP/rcopy" report --format md
printf '%s\n' "$OUT" | diff "$T_TMP/rx/report.md" - >"$T_TMP/rr.diff"
eq "$(grep '^[<>]' "$T_TMP/rr.diff" | grep -vc '^[<>] Generated .* from the record in ')" 0 \
	"the redacted bundle's report is its record's (trial.yaml's paths redacted alike)"
hasnt "artefact missing" "$OUT" "the redacted copy misses no artefact"
"$MTRIAL" --trial "$T_TMP/rcopy" decide --json >"$T_TMP/rd.json" 2>/dev/null
diff "$T_TMP/d1.json" "$T_TMP/rd.json" >"$T_TMP/rd.diff"
eq "$(grep -c '^[<>]' "$T_TMP/rd.diff")" 0 "the redacted copy's decide --json is the original's"
check "... and says something" grep -q "time-to-quality" "$T_TMP/rd.json"
OUT=$("$MTRIAL" --trial "$T_TMP/rcopy" doctor --json)
eq "$(json 'j["trial"]["missing_artefacts"]')" "[]" "doctor: the redacted copy misses no artefact"
for f in "$T_TMP"/bad-*.tar.gz; do "$MTRIAL" bundle verify "$f"; done 2>&1 | sed "s|$T_TMP|<TMP>|" >&2
finish
