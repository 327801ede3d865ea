# mtrial tables: the bundled tables; import from a file (Markdown, RST,
# analyze JSON) and the probe using the import; import from a URL served by
# tests/http/server.py on 127.0.0.1 and update it: 304 unchanged, a changed
# document updated, and every failure (truncated, wrong sha256, too slow, a
# body that does not import) keeping the table it had.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data
D=$MT_SOURCE_DIR/tests/data/compat
TABLES=$XDG_DATA_HOME/mtrial/tables

# --- offline: bundled, import from files, probe -----------------------------
run_mt 0 tables list
for t in torch-neuronx-training torch-neuron-inf1 torchneuron-2.14; do
	has "$t " "$OUT" "tables list shows the bundled $t"
done
run_mt 0 tables show torch-neuronx-training --json
eq "$(json 'len(j["entries"])')" 41 "torch-neuronx-training lists 41 ops"

run_mt 0 tables import "$D/shuffled.md" --as team --backend torch-neuronx --version 2.14.3.0
has "team: imported from $D/shuffled.md (markdown): 8 ops: 3 device, 2 partial, 2 cpu_fallback, 1 unsupported" "$OUT" "import summary"
check "table written" test -f "$TABLES/compat-team.yaml"
check "sidecar written" test -f "$TABLES/team.origin.json"
OUT=$(cat "$TABLES/team.origin.json")
eq "$(json 'j["sha256"]')" "$(sha256sum "$D/shuffled.md" | cut -d' ' -f1)" "sidecar sha256"
eq "$(json 'j["format"]')" markdown "sidecar format"
run_mt 0 tables list
has "team                       torch-neuronx 2.14.3.0, 8 ops" "$OUT" "tables list shows the import"
has "[imported]" "$OUT" "marked as imported"
run_mt 0 tables show team --json
eq "$(json 'j["retrieved"]')" "$(date -u +%F)" "retrieved today"
eq "$(json 'j["source"]')" "file $D/shuffled.md (sha256 $(sha256sum "$D/shuffled.md" | cut -d' ' -f1))" "source names the file"

R=$T_TMP/repo
new_repo "$R"
cat >"$R/train.py" <<'EOF'
import torch
x = torch.ones(2, 2)
y = torch.add(x, x)
z = torch.mm(x, y)
w = torch.pow(z, 2)
f = torch.fft.fft(w)
c = torch.view_as_complex(x)
EOF
git -C "$R" add train.py && git -C "$R" -c user.name=t -c user.email=t@example.com commit -qm ops
run_mt 1 probe --repo "$R" --table team --json
st() { json "[o['status'] for o in j['ops'] if o['op']=='$1'][0]"; }
src() { json "[o['source'] for o in j['ops'] if o['op']=='$1'][0]"; }
eq "$(json 'j["table"]["name"]')" team "probe uses the imported table"
eq "$(st aten::add)" device "add from the import"
eq "$(st aten::pow)" partial "pow from the import"
eq "$(st aten::fft_fft)" cpu_fallback "fft from the import"
eq "$(st aten::view_as_complex)" unsupported "view_as_complex from the import"
has "team:" "$(src aten::mm)" "the source names the table"

run_mt 0 tables import "$D/shuffled.md" --as team --json
eq "$(json 'j["unregistered"]')" "[]" "every op of the fixture is registered"
# op names are checked against libtorch's registry: a warning, not a refusal
cat >"$T_TMP/newer.md" <<'MD'
| op | status |
|---|---|
| aten::add | yes |
| aten::scaled_dot_product_attention | yes |
| aten::gelu_typo | no |
MD
run_mt 0 tables import "$T_TMP/newer.md" --as newer
has "warning: 2 ops are not in the operator registry of libtorch 1.13" "$OUT" "unregistered ops warned"
has "aten::gelu_typo (line " "$OUT" "the typo named with its line"
run_mt 0 tables import "$T_TMP/newer.md" --as newer --json
eq "$(json '[u.split(" ")[0] for u in j["unregistered"]]')" "['aten::gelu_typo', 'aten::scaled_dot_product_attention']" \
	"unregistered ops in the JSON"
before=$(cat "$TABLES/compat-team.yaml")
run_mt 2 tables import "$D/badword.md" --as team
has "badword.md:6:14: status 'beta' of aten::mm is not a known word" "$ERR" "bad word named with its line and column"
eq "$(cat "$TABLES/compat-team.yaml")" "$before" "a bad import keeps the old table"
run_mt 0 tables import "$D/mapped.md" --as mapped --map "$D/mapped.map.yaml" --json
eq "$(json 'j["counts"]')" "{'device': 1, 'cpu_fallback': 0, 'unsupported': 1, 'partial': 1}" "mapped import"
run_mt 0 tables import "$D/ops.rst" --as torch-neuronx-training
has "shadows the bundled table torch-neuronx-training" "$OUT" "shadowing said"
run_mt 0 tables list
has "torch-neuronx-training     torch-neuronx unspecified, 6 ops" "$OUT" "the import shadows the bundled table"
has "[shadows the bundled table]" "$OUT" "list says so"
run_mt 0 tables import "$D/analyze-inference.json" --json
eq "$(json 'j["name"]')" analyze-inference "name from the file name"
run_mt 0 tables show analyze-inference --json
eq "$(json 'j["kind"]')" observed "analyze output is observed"
run_mt 2 tables import "$D/multi.md" --format csv
run_mt 2 tables import "http://example.com/ops.md" --as web
has "only https is allowed" "$ERR" "https only"
run_mt 2 tables update team
has "was imported from the file" "$ERR" "a file import has no URL"

# --- over HTTP: tests/http/server.py on 127.0.0.1 ---------------------------
# the test kills it; the lifetime is for a test that dies (600 s: under
# ASan on a loaded machine the test takes minutes)
python3 "$MT_SOURCE_DIR/tests/http/server.py" --lifetime 600 >"$T_TMP/port" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; rm -rf "$T_TMP"' EXIT
for _ in $(seq 100); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
BASE=http://127.0.0.1:$(head -n1 "$T_TMP/port")
put() { # put NAME FILE: the server answers FILE at $BASE/doc/NAME from now on
	python3 - "$BASE/doc/$1" "$2" <<'EOF'
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
opener.open(urllib.request.Request(sys.argv[1], data=open(sys.argv[2], "rb").read(), method="PUT"))
EOF
}
put ops.md "$D/multi.md"
run_mt 0 tables import "$BASE/doc/ops.md" --as web --json
eq "$(json 'j["ops"]')" 5 "import from a URL"
eq "$(json 'j["source"]')" "$BASE/doc/ops.md" "source is the URL"
OUT=$(cat "$TABLES/web.origin.json")
eq "$(json 'j["url"]')" "$BASE/doc/ops.md" "sidecar url"
eq "$(json 'j["etag"] is not None and j["last_modified"] is not None')" True "sidecar validators"
run_mt 0 tables show web --json
eq "$(json 'j["source"]')" "$BASE/doc/ops.md" "the table's source is the URL"

run_mt 0 tables update web
has "web: unchanged" "$OUT" "304: unchanged"
put ops.md "$D/shuffled.md"
run_mt 0 tables update web --json
eq "$(json 'j["outcome"]')" updated "a changed document: updated"
eq "$(json 'j["ops"]')" 8 "the new table"
good=$(cat "$TABLES/compat-web.yaml")

run_mt 1 tables update web --url "$BASE/truncated"
has "kept the current table" "$ERR" "truncated: kept"
has "truncated" "$ERR" "truncated: says why"
run_mt 2 tables update web --sha256 0000000000000000000000000000000000000000000000000000000000000000
has "sha256 mismatch" "$ERR" "wrong checksum: says why"
run_mt 1 tables update web --url "$BASE/slow?s=3" --timeout 1
has "timed out" "$ERR" "slow: says why"
put ops.md "$D/badword.md"
run_mt 2 tables update web
has "kept the current table" "$ERR" "malformed: kept"
has "status 'beta' of aten::mm" "$ERR" "malformed: says why"
run_mt 2 tables update web --url "$BASE/table.yaml"
has "no Markdown table" "$ERR" "a document that is no table: says why"
eq "$(cat "$TABLES/compat-web.yaml")" "$good" "every failure kept the table"
OUT=$(cat "$TABLES/web.origin.json")
eq "$(json 'j["url"]')" "$BASE/doc/ops.md" "a failed --url is not recorded"

# libcurl is loaded only when a table is fetched: without it, a message
# naming it and the table kept
MTRIAL_CURL_LIBRARY=/nonexistent/libcurl.so.4 run_mt 1 tables update web
has "cannot load libcurl (/nonexistent/libcurl.so.4)" "$ERR" "no libcurl: says which library"
eq "$(cat "$TABLES/compat-web.yaml")" "$good" "no libcurl: the table kept"
MTRIAL_CURL_LIBRARY=/nonexistent/libcurl.so.4 run_mt 0 tables list
MTRIAL_CURL_LIBRARY=/nonexistent/libcurl.so.4 run_mt 1 doctor --json
eq "$(json '[l["found"] for l in j["libraries"] if l["name"] == "libcurl"]')" "[False]" "doctor: libcurl not found"

# with no NAME: every table that has a URL (team has none)
put ops.md "$D/shuffled.md"
run_mt 0 tables update --json
eq "$(json '[(r["name"], r["outcome"]) for r in j]')" "[('web', 'unchanged')]" "update all"
put ops.md "$D/multi.md"
run_mt 0 tables update
has "web: updated" "$OUT" "update all: updated"
run_mt 0 tables list
has "web " "$OUT" "still listed"

finish
