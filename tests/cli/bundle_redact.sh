# mtrial bundle --redact keeps the trial whole (issue 20, part 2): a new
# user's trial (a small repository with a train.py, scanned and probed, two
# MLPerf logs imported, notes, trial.yaml naming absolute paths as plain
# YAML) packed with --redact. The artefacts the events name (the scan's,
# the probe's results, the runs' logs) are redacted too, named by their new
# hash, the events pointing at the new names: the bundle verifies, the
# trial made from it reports no artefact missing, and its report and
# decide are what the redacted record says. No absolute path of the
# original and no host name is anywhere in the bundle, its artefacts
# inflated. An artefact the trial lacks is not carried, and said.
. "$MT_SOURCE_DIR/tests/lib.sh"

MLLOG=$MT_SOURCE_DIR/tests/data/curves # the public Dell ResNet-50 logs (its README)
HOST=$(hostname)
R=$T_TMP/proj
new_repo "$R"
cat >"$R/train.py" <<'PY'
import torch
import torch.nn as nn
model = nn.Linear(10, 2).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(4, 10, device="cuda")
    loss = model(x).sum()
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
PY
(cd "$R" && git add train.py && git commit -qm train) || bad "the repository"
cd "$R"
run_mt 0 init
# absolute paths as plain YAML scalars: redacted, they must stay strings
sed -i "s|^  repository: .*|  repository: $R|; s|^    name:\$|    name: $T_TMP/data/imagenet # the copy on $HOST|" \
	.mtrial/trial.yaml
python3 - "$T_TMP" <<'PY' # and in a flow mapping, where "{path}" would end it
import re, sys
s = open(".mtrial/trial.yaml").read()
s = re.sub(r"  model:\n(    .*\n)*?    config:\n", "  model: {name: tiny, config: %s/cfg/model.json}\n" % sys.argv[1], s, count=1)
open(".mtrial/trial.yaml", "w").write(s)
PY
run_mt 0 spec
run_mt 0 scan
run_mt 0 probe
mkdir -p "$T_TMP/logs"
cp "$MLLOG/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt" "$T_TMP/logs/base.log"
cp "$MLLOG/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt" "$T_TMP/logs/cand.log"
run_mt 0 runs import "$T_TMP/logs/base.log" --system baseline
run_mt 0 runs import "$T_TMP/logs/cand.log" --system candidate
run_mt 0 note --tag private "the keys are in $T_TMP/keys on $HOST"
run_mt 0 note "the first compile took 40 minutes in $R"
nobj=$(find .mtrial/objects -type f | wc -l)
check "the trial has artefacts (scan, summary, probe, two logs)" test "$nobj" -ge 5

# an object no event names (what a withdrawn import or a crash can leave):
# counted, never carried
stray=$(python3 - .mtrial/objects <<'PY'
import gzip, hashlib, os, sys
data = b"a log no event names, written on the stray host\n"
hexd = hashlib.sha256(data).hexdigest()
d = os.path.join(sys.argv[1], "sha256", hexd[:2])
os.makedirs(d, exist_ok=True)
open(os.path.join(d, hexd[2:]), "wb").write(gzip.compress(data))
print(hexd)
PY
)
B=$T_TMP/red.tar.gz
run_mt 0 bundle -o "$B" --redact --json
eq "$(json 'j["redacted"]["objects_unnamed_not_carried"]')" 1 "the object no event names counted"
has "1 object(s) in .mtrial/objects that no event names: not carried" "$(json '"\n".join(j["notes"])')" \
	"and said"
eq "$(json 'j["redacted"]["private_note_events"]')" 1 "the private note dropped"
eq "$(json 'j["redacted"]["artefacts_not_carried"]')" 0 "every artefact carried"
check "the artefacts rewritten, counted" test "$(json 'j["redacted"]["artefacts_rewritten"]')" -ge 4
eq "$(json 'j["redacted"]["artefacts_rewritten_by_kind"]["run log"], j["redacted"]["artefacts_rewritten_by_kind"]["scan"] >= 1')" \
	"2 True" "... by kind: both run logs, the scan"
eq "$(json 'sum(j["redacted"]["artefacts_rewritten_by_kind"].values()) == j["redacted"]["artefacts_rewritten"]')" \
	True "... the kinds add up"
eq "$(json '[n for n in j["notes"] if "artefact" in n]')" "[]" "no note of artefacts left out"
run_mt 0 bundle -o "$B" --redact
has "run log 2) rewritten and named by their new hash" "$OUT" "the redaction says what it rewrote"
has "1 object(s) no event names not carried" "$OUT" "the summary counts the object no event names"
run_mt 0 bundle verify "$B"

X=$T_TMP/x
mkdir -p "$X" && tar xzf "$B" -C "$X"
carried=$(find "$X/record/objects" -type f | wc -l)
check "the artefacts are in the bundle" test "$carried" -ge 5
check "the object no event names is not" test ! -e "$X/record/objects/sha256/${stray:0:2}/${stray:2}"
bad_names=0
for f in $(find "$X/record/objects" -type f); do
	hex=$(basename "$(dirname "$f")")$(basename "$f")
	[ "$(zcat "$f" | sha256sum | cut -c1-64)" = "$hex" ] || bad_names=$((bad_names + 1))
	zcat "$f" >"$f.inflated" # for the grep below
done
eq "$bad_names" 0 "each artefact named by the hash of its redacted content"
# the events name the new artefacts, none of the old
for f in $(find .mtrial/objects -type f); do
	hex=$(basename "$(dirname "$f")")$(basename "$f")
	if ! zcat "$f" | grep -q -- "$T_TMP"; then continue; fi # nothing to redact: may stay
	check "an old artefact name is not in the redacted record" sh -c "! grep -rq '$hex' '$X/record/events'"
done
for ref in $(grep -oh '"object":"sha256:[0-9a-f]*"' "$X"/record/events/*.jsonl | sort -u | cut -d: -f3 | tr -d '"'); do
	check "the record's artefact $ref is carried" test -f "$X/record/objects/sha256/${ref:0:2}/${ref:2}"
done

# no absolute path of the original and no host name, anywhere
check "no scratch path anywhere in the bundle" sh -c "! grep -rq -- '$T_TMP' '$X'"
check "no home or repository path anywhere" sh -c "! grep -rqF -- '$R' '$X'"
hostre="(?<![A-Za-z0-9_.-])$HOST(?![A-Za-z0-9_-]|\.[A-Za-z0-9])"
check "no host name anywhere in the bundle" sh -c "! grep -rqP -- '$hostre' '$X'"
check "the private note is gone" sh -c "! grep -rq 'the keys are in' '$X'"
has "repository: '{path}/proj'" "$(cat "$X/trial.yaml")" "a plain YAML path quoted where it became {path}"
has "model: {name: tiny, config: '{path}/model.json'}" "$(cat "$X/trial.yaml")" "... in a flow mapping too"
mkdir -p "$T_TMP/x-spec" && cp "$X/trial.yaml" "$T_TMP/x-spec/"
run_mt 0 --trial "$T_TMP/x-spec" spec --json
eq "$(json 'j["workload"]["model"]["config"], j["workload"]["repository"]')" "{path}/model.json {path}/proj" \
	"the redacted trial.yaml reads as YAML, the same keys"
has "the first compile took 40 minutes in {path}/proj" "$(cat "$X/report.md")" "other notes stay, redacted"
has "{path}/base.log" "$(cat "$X"/record/objects/sha256/*/*.inflated) $(cat "$X/record/events/"*.jsonl)" \
	"a log's path keeps its file name"

# the trial made from it: whole, and what the redacted record says
C=$T_TMP/copy
run_mt 0 init --from-bundle "$B" "$C"
OUT=$("$MTRIAL" --trial "$C" doctor --json) # its status says also whether libtorch is here
eq "$(json 'j["trial"]["missing_artefacts"]')" "[]" "the copy misses no artefact"
run_mt 0 --trial "$C" report --format md
hasnt "artefact missing" "$OUT" "its report says nothing missing"
has "Static scan #1 of {path}/proj" "$OUT" "the scan read from its redacted artefact"
has "Probe #1" "$OUT" "the probe read from its redacted artefact"
printf '%s\n' "$OUT" | diff "$X/report.md" - >"$T_TMP/r.diff"
eq "$(grep '^[<>]' "$T_TMP/r.diff" | grep -vc '^[<>] Generated .* from the record in ')" 0 \
	"the copy's report is the bundle's, but for where it was made"
"$MTRIAL" decide --json >"$T_TMP/d1.json" 2>/dev/null
"$MTRIAL" --trial "$C" decide --json >"$T_TMP/d2.json" 2>/dev/null
check "decide says something" test -s "$T_TMP/d2.json"
sed "s|$T_TMP/logs|{path}|g" "$T_TMP/d1.json" >"$T_TMP/d1r.json"
check "decide --json in the copy is the original's, redacted" cmp -s "$T_TMP/d1r.json" "$T_TMP/d2.json"
run_mt 0 --trial "$C" runs show 1
has "{path}/base.log" "$OUT" "a run's source redacted"
has "MLPerf" "$OUT" "its figures read from the redacted log"

# an artefact the trial lacks: not carried, said, and named missing in the copy
cp -r .mtrial "$T_TMP/t2"
rm -f "$T_TMP/t2/journal.db"
victim=$(find "$T_TMP/t2/objects" -type f | head -1)
rm "$victim"
run_mt 0 --trial "$T_TMP/t2" bundle -o "$T_TMP/miss.tar.gz" --redact --json
eq "$(json 'j["redacted"]["artefacts_not_carried"]')" 1 "the missing artefact counted"
has "not carried" "$(json '"\n".join(j["notes"])')" "and said"
run_mt 0 init --from-bundle "$T_TMP/miss.tar.gz" "$T_TMP/copy2"
OUT=$("$MTRIAL" --trial "$T_TMP/copy2" doctor --json)
eq "$(json 'len(j["trial"]["missing_artefacts"])')" 1 "the copy names it missing"
finish
