# mtrial tables with the target's own API table: import as it is (no
# --map), show it (text, JSON, YAML), the round trip through mtrial's own
# YAML, and bad tables refused with file:line:column, exit 2, nothing written.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data
D=$MT_SOURCE_DIR/tests/data/compat
TABLES=$XDG_DATA_HOME/mtrial/tables

run_mt 0 tables import "$D/tn-qualified.md" --as tn
has "tn: imported from $D/tn-qualified.md (markdown): 9 APIs: 5 device, 0 partial, 3 cpu_fallback, 1 unsupported; 1 ops: 0 device, 0 partial, 1 cpu_fallback, 0 unsupported" \
	"$OUT" "import counts APIs and ops"
run_mt 0 tables import "$D/tn-qualified.md" --as tn --json
eq "$(json '(j["apis"], j["api_counts"]["cpu_fallback"], j["ops"])')" "(9, 3, 1)" "import --json counts"
eq "$(json 'j["unregistered"]')" "[]" "the ops the APIs name are registered"

run_mt 0 tables show tn
has "torch.cumsum                             cpu_fallback  ops: aten::cumsum  fallback dtypes: int64, bool" \
	"$OUT" "text: an API with its op and fallback dtypes"
has "torch.distributed.all_reduce             device process-group" "$OUT" "text: the kind"
has "aten::_unique2                           cpu_fallback  fallback dtypes: int64" "$OUT" "text: an aten entry"
run_mt 0 tables show tn --json
eq "$(json '[(a["api"], a["kind"]) for a in j["api_entries"] if a["status"] == "device"]')" \
	"[('torch.Tensor.abs', 'native'), ('torch.Tensor.register_hook', 'host-only'), ('torch.distributed.all_reduce', 'process-group'), ('torch.nn.functional.gelu', 'native'), ('torch.bitwise_or', 'native')]" \
	"json: device APIs and their kinds in table order"
eq "$(json '[a["fallback_dtypes"] for a in j["api_entries"] if a["api"] == "torch.cumsum"]')" "[['int64', 'bool']]" \
	"json: fallback dtypes"
eq "$(json '(j["apis"], j["ops"], j["entries"][0]["fallback_dtypes"])')" "(9, 1, ['int64'])" "json: counts and an aten entry"
before=$(cat "$T_TMP/out")

# the round trip: show --format yaml imports again as the identical table
run_mt 0 tables show tn --format yaml
printf '%s\n' "$OUT" >"$T_TMP/shared.yaml"
has "schema: mtrial-compat/1" "$OUT" "yaml: mtrial's own format"
run_mt 0 tables import "$T_TMP/shared.yaml" --as tn
has "(yaml): 9 APIs" "$OUT" "yaml detected by its schema"
run_mt 0 tables show tn --json
eq "$OUT" "$before" "import md, show yaml, import yaml: show --json identical"
# under its own name when no --as is given, whatever the file is called
cp "$T_TMP/shared.yaml" "$T_TMP/anything.md"
run_mt 0 tables import "$T_TMP/anything.md" --json
eq "$(json '(j["name"], j["format"])')" "('tn', 'yaml')" "a YAML table keeps its own name"
# under another name: only the name differs
run_mt 0 tables import "$T_TMP/shared.yaml" --as team
run_mt 0 tables show team --json
eq "$(printf '%s' "$OUT" | sed 's/"team"/"tn"/g')" "$before" "renamed: the same table"
OUT=$(cat "$TABLES/team.origin.json")
eq "$(json 'j["format"]')" yaml "sidecar format yaml"
run_mt 0 tables list
has "team                       torch-neuronx unspecified, 1 ops, 9 APIs" "$OUT" "list counts APIs"

# short names under headings, found without --map
run_mt 0 tables import "$D/tn-headings.md" --as heads --json
eq "$(json 'j["apis"]')" 10 "short names under headings"
run_mt 0 tables show heads --json
eq "$(json '[a["api"] for a in j["api_entries"]][:3]')" "['torch.zeros', 'torch.cumprod', 'torch.Tensor.flip']" \
	"qualified by the heading"

# refused: exit 2, file:line:column, nothing written
good=$(cat "$TABLES/compat-tn.yaml")
run_mt 2 tables import "$D/tn-short.md" --as tn
has "tn-short.md:6:3: 'cumsum' is a short name and no heading above it names its namespace" "$ERR" "short name"
run_mt 2 tables import "$D/tn-unrecognised.md" --as tn
has "(line 3: 'Release | Date | Highlights' (no name column; words seen: '2.14'" "$ERR" "names the headers and words seen"
printf '| API | Supported |\n|---|---|\n| torch.abs | Y |\n| torch.sin | Maybe |\n' >"$T_TMP/bad.md"
run_mt 2 tables import "$T_TMP/bad.md" --as tn
has "bad.md:4:15: status 'Maybe' of torch.sin is not a known word" "$ERR" "a malformed row"
sed 's/status: device/status: sometimes/' "$T_TMP/shared.yaml" >"$T_TMP/bad.yaml"
run_mt 2 tables import "$T_TMP/bad.yaml" --as tn
has "bad.yaml:" "$ERR" "bad YAML: the file"
has "unknown status 'sometimes'" "$ERR" "bad YAML: what"
run_mt 2 tables import "$T_TMP/shared.yaml" --as tn --backend b
has "--backend, --version and --map are for the other formats" "$ERR" "YAML has its own identity"
eq "$(cat "$TABLES/compat-tn.yaml")" "$good" "every refusal kept the table"
check "nothing written for a refused new name" test ! -e "$TABLES/compat-bad.yaml"
run_mt 2 tables import "$T_TMP/bad.md"
check "nothing written under the file's name" test ! -e "$TABLES/compat-bad.yaml"

run_mt 2 tables show tn --format xml
run_mt 2 tables show tn --json --format yaml
run_mt 0 tables show torchneuron-2.14 --format yaml
has "Do not edit by hand" "$OUT" "a bundled table as it is written"

finish
