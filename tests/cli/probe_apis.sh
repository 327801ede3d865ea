# mtrial probe against a table that lists public APIs (the target's own
# table is keyed so): each call is judged by its API's entry first, then by
# its aten op (the op's entry, else an API entry naming it); a tensor method
# matches torch.Tensor.NAME with its receiver assumed a tensor; kinds
# (host-only, a process group) are conditions of a supported API; a CPU
# fallback limited to some dtypes holds for a scan (no dtypes known), and
# for a trace that optrace.py makes here only when the op ran with one of
# them. Text, --json, the recorded probe and the report agree, figure by
# figure. A table without APIs keeps the op listing.
. "$MT_SOURCE_DIR/tests/lib.sh"
require_torch
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
cat >"$R/train.py" <<'PY'
import torch
import torch.distributed as dist
import torch.nn.functional as F
x = torch.ones(3)
y = torch.cumsum(x, 0)
z = F.gelu(y)
s = torch.sub(z, 1)
a = torch.add(s, 1)
dist.all_reduce(a)
torch.manual_seed(0)
def f(t):
    return t.masked_scatter(t > 0, t)
w = y.masked_scatter(y > 0, y)
PY
git -C "$R" add -A && git -C "$R" commit -qm init

TAB=$T_TMP/apitab.yaml
cat >"$TAB" <<'YAML'
schema: mtrial-compat/1
name: apitab
backend: test
version: "1"
kind: documented
source: {url: "https://example.com/apitab"}
retrieved: 2026-11-06
ops:
  aten::add: {status: device}
apis:
  torch.cumsum: {status: cpu_fallback, kind: native, ops: [aten::cumsum], dtypes: {fallback: [int64]}}
  torch.distributed.all_reduce: {status: device, kind: process-group}
  torch.Tensor.masked_scatter: {status: unsupported}
  torch.manual_seed: {status: device, kind: host-only}
  torch.Tensor.sub: {status: partial, kind: native, ops: [aten::sub], conditions: [alpha is 1]}
  torch.nn.functional.gelu: {status: device, kind: native}
YAML
line() { grep -n "^  $1:" "$TAB" | cut -d: -f1; }

# --- a scan, by API ---------------------------------------------------------
run_mt 1 probe --repo "$R" --table "$TAB" --json
api() { json "[(a[\"status\"], a[\"source\"], a[\"kind\"], a[\"op\"]) for a in j[\"apis\"] if a[\"api\"]==\"$1\"][0]"; }
eq "$(json 'j["listed_by"]')" api "a table with APIs lists by API"
eq "$(api torch.cumsum)" "('cpu_fallback', 'table:apitab:$(line torch.cumsum)', 'native', 'aten::cumsum')" \
	"torch.cumsum: its API entry decides"
eq "$(json '[a["conditions"] for a in j["apis"] if a["api"]=="torch.cumsum"][0]')" \
	"['CPU fallback only for int64; the dtypes it runs with are not known here']" \
	"a scan knows no dtypes: the fallback holds, with its condition"
eq "$(api torch.nn.functional.gelu)" "('device', 'table:apitab:$(line torch.nn.functional.gelu)', 'native', 'aten::gelu')" \
	"F.gelu resolved through the import alias"
eq "$(api torch.add)" "('device', 'table:apitab:$(line aten::add)', None, 'aten::add')" \
	"no API entry: the op's aten entry decides"
eq "$(api torch.sub)" "('partial', 'table:apitab:$(line torch.Tensor.sub)', None, 'aten::sub')" \
	"no API or aten entry: an API entry naming the op decides"
eq "$(json '[(a["via"], a["conditions"]) for a in j["apis"] if a["api"]=="torch.sub"][0]')" \
	"('torch.Tensor.sub', ['alpha is 1'])" "... and says which entry"
eq "$(api torch.Tensor.masked_scatter)" "('unsupported', 'table:apitab:$(line torch.Tensor.masked_scatter)', None, 'aten::masked_scatter')" \
	"a method call matches torch.Tensor.NAME"
eq "$(json '[(a["receiver"], a["count"], a["uncertain"], [l["certain"] for l in a["locations"]]) for a in j["apis"] if a["api"]=="torch.Tensor.masked_scatter"][0]')" \
	"('assumed a tensor', 2, 1, [False, True])" "... its receiver assumed a tensor, the uncertain site marked"
eq "$(api torch.distributed.all_reduce)" "('device', 'table:apitab:$(line torch.distributed.all_reduce)', 'process-group', None)" \
	"a call with no aten op is still judged by its API"
eq "$(json '[a["conditions"][0].startswith("needs a process group") for a in j["apis"] if a["api"]=="torch.distributed.all_reduce"][0]')" True \
	"a process group is the condition"
eq "$(json '[a["conditions"][0].startswith("host-only") and "no device work" in a["conditions"][0] for a in j["apis"] if a["api"]=="torch.manual_seed"][0]')" True \
	"host-only: supported, no device work"
eq "$(api torch.ones)" "('unknown', 'none', None, 'aten::ones')" "no table lists it: unknown"
# the op list: an op takes an entry naming it, or the entry of the API that reached it
op() { json "[(o[\"status\"], o[\"source\"], o.get(\"via\")) for o in j[\"ops\"] if o[\"op\"]==\"$1\"][0]"; }
eq "$(op aten::cumsum)" "('cpu_fallback', 'table:apitab:$(line torch.cumsum)', 'torch.cumsum')" "aten::cumsum by the API naming it"
eq "$(op aten::masked_scatter)" "('unsupported', 'table:apitab:$(line torch.Tensor.masked_scatter)', 'torch.Tensor.masked_scatter')" \
	"aten::masked_scatter by the API whose calls reached it"
eq "$(op aten::ones)" "('unknown', 'none', None)" "aten::ones unknown"
# the summary counts both, and says which share is which
count() { json "sum(1 for a in j[\"$1\"] if a[\"status\"]==\"$2\")"; }
for st in device partial cpu_fallback unsupported unknown; do
	eq "$(json "j['summary']['apis']['$st']")" "$(count apis $st)" "summary.apis.$st counts the APIs"
	eq "$(json "j['summary']['$st']")" "$(count ops $st)" "summary.$st counts the ops"
done
eq "$(json '(j["summary"]["apis"]["apis"], j["summary"]["ops"])')" "($(json 'len(j["apis"])'), $(json 'len(j["ops"])'))" "both totals"
eq "$(json '(j["summary"]["support_of"], j["summary"]["apis"]["support_of"])')" "('ops', 'apis')" "support_percentage says what it counts"
APIS_PCT=$(json 'j["summary"]["apis"]["support_percentage"]')
OPS_PCT=$(json 'j["summary"]["support_percentage"]')
eq "$APIS_PCT" "$(json 'round(100*sum(1 for a in j["apis"] if a["status"] in ("device","partial"))/len(j["apis"]),1)')" "API share"
JSON_OUT=$OUT

run_mt 1 probe --repo "$R" --table "$TAB"
has "Unsupported APIs (every one, with its call sites):" "$OUT" "text lists APIs"
has "torch.Tensor.masked_scatter" "$OUT" "text names the method's API"
has "the receiver is assumed to be a tensor" "$OUT" "text says the receiver is assumed"
has "train.py:12 (uncertain)" "$OUT" "text marks the uncertain site"
has "$(OUT=$JSON_OUT json 'sum(1 for a in j["apis"] if a.get("receiver"))') of the APIs are tensor methods (x.NAME(...) as torch.Tensor.NAME): their receivers are assumed to be tensors." \
	"$OUT" "text counts the tensor methods whose receivers are assumed"
has "when: CPU fallback only for int64" "$OUT" "text gives the dtype condition"
has "Supported, with a condition:" "$OUT" "text lists supported APIs with a condition"
has "by the entry for torch.Tensor.sub" "$OUT" "text says which entry decided"
OUTJ=$JSON_OUT
S_API=$(OUT=$OUTJ json 'j["summary"]["apis"]')
has "$(OUT=$OUTJ json '"%d APIs: %d on device, %d partial, %d CPU fallback, %d unsupported, %d unknown (%.1f%% of APIs supported, %.1f%% unknown)." % (tuple(j["summary"]["apis"][k] for k in ("apis","device","partial","cpu_fallback","unsupported","unknown","support_percentage")) + (100 * j["summary"]["apis"]["unknown"] / j["summary"]["apis"]["apis"],))')" \
	"$OUT" "text's API counts are the JSON's"
has "$(OUT=$OUTJ json '"%d ops: %d on device, %d partial, %d CPU fallback, %d unsupported, %d unknown (%.1f%% of ops supported, %.1f%% unknown)." % (tuple(j["summary"][k] for k in ("ops","device","partial","cpu_fallback","unsupported","unknown","support_percentage")) + (100 * j["summary"]["unknown"] / j["summary"]["ops"],))')" \
	"$OUT" "text's op counts are the JSON's"

# --- a table without APIs: listed by op, as before ---------------------------
run_mt 0 probe --repo "$R" --table torch-neuron-inf1 --json
eq "$(json 'j["listed_by"]')" op "no APIs in the table: listed by op"
eq "$(json 'sorted({a["status"] for a in j["apis"]} - {o["status"] for o in j["ops"]})')" "[]" "APIs take their ops' statuses"
run_mt 0 probe --repo "$R" --table torch-neuron-inf1
hasnt "APIs" "$OUT" "op listing says nothing of APIs"
has "% supported" "$OUT" "op listing's share as before"

# --- overrides outrank the API entry ------------------------------------------
cd "$R"
run_mt 0 init --name apis
run_mt 0 scan
cat >"$R/.mtrial/trial.yaml" <<YAML
schema: 1
name: apis
probe:
  table: $TAB
  overrides:
    - op: aten::cumsum
      status: device
      note: "ran on 2.14.3 with int64"
    - op: aten::masked_scatter
      status: cpu_fallback
      note: "falls back on 2.14.3"
YAML
run_mt 0 spec
run_mt 0 probe --json
eq "$(api torch.cumsum)" "('device', 'override:trial.yaml#1', None, 'aten::cumsum')" "an override for the API's op outranks the API entry"
eq "$(api torch.Tensor.masked_scatter)" "('cpu_fallback', 'override:trial.yaml#2', None, 'aten::masked_scatter')" "an override for the op decides for the API that runs it"
eq "$(op aten::masked_scatter)" "('cpu_fallback', 'override:trial.yaml#2', None)" "... and for the op"
PROBE=$OUT

# --- the report: the same figures, by API --------------------------------------
run_mt 0 report
has "| status | APIs | ops |" "$OUT" "report counts APIs and ops"
has "| CPU fallback | $(OUT=$PROBE json 'j["summary"]["apis"]["cpu_fallback"]') | $(OUT=$PROBE json 'j["summary"]["cpu_fallback"]') |" "$OUT" "report's CPU fallback counts"
has "| unknown (no table says) | $(OUT=$PROBE json 'j["summary"]["apis"]["unknown"]') | $(OUT=$PROBE json 'j["summary"]["unknown"]') |" "$OUT" "report's unknown counts"
has "$(OUT=$PROBE json '"**%d** (%g%% of APIs supported, %g%% unknown)" % (j["summary"]["apis"]["apis"], j["summary"]["apis"]["support_percentage"], round(1000 * j["summary"]["apis"]["unknown"] / j["summary"]["apis"]["apis"]) / 10)')" "$OUT" "report's API share, with the share unknown"
has "- **CPU fallback** \`torch.Tensor.masked_scatter\` (aten::masked_scatter) (2 calls; override:trial.yaml#2)" "$OUT" "report lists an API with its op and source"
has "- on device \`torch.distributed.all_reduce\` (1 calls; table:apitab:$(line torch.distributed.all_reduce)): when needs a process group" "$OUT" "report: a supported API's condition"
has "- open question: \`torch.ones\` (aten::ones) (1 calls): no table says" "$OUT" "report: an unknown API"
run_mt 0 report --format html
has "<th>APIs</th>" "$OUT" "html report counts APIs"
has "<code>torch.Tensor.masked_scatter</code> (<code>aten::masked_scatter</code>)" "$OUT" "html lists APIs"
cd "$T_TMP"

# --- dtypes: a trace that optrace.py makes here ---------------------------------
cat >"$T_TMP/cums.py" <<'PY'
import sys
import torch
w = torch.ones(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for _ in range(2):
    if sys.argv[1] == "int64":
        idx = torch.cumsum(torch.arange(3), 0)
        loss = (w * idx).sum()
    else:
        loss = torch.cumsum(w * 2, 0).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
for dt in float32 int64; do
	(cd "$T_TMP" && "$PY" "$MT_SOURCE_DIR/probes/optrace.py" -o "$T_TMP/$dt.json" -- cums.py "$dt") \
		>"$T_TMP/trace.out" 2>&1 || bad "optrace on $dt: $(cat "$T_TMP/trace.out")"
done
cum() { json '[(o["status"], o["dtypes"], o["conditions"]) for o in j["ops"] if o["op"]=="aten::cumsum"][0]'; }
run_mt 0 probe --from trace "$T_TMP/float32.json" --table "$TAB" --json
eq "$(json 'j["listed_by"]')" op "a trace names ops, not APIs: listed by op"
eq "$(cum)" "('device', ['float32'], ['CPU fallback only for int64; seen only with float32, which run on the device'])" \
	"cumsum seen only with float32: on the device, the condition named"
eq "$(json '[o["source"] for o in j["ops"] if o["op"]=="aten::cumsum"][0]')" "table:apitab:$(line torch.cumsum)" "... from the API entry naming it"
run_mt 0 probe --from trace "$T_TMP/float32.json" --table "$TAB"
has "Supported, with a condition:" "$OUT" "text lists the op on the device under its condition"
has "seen only with float32" "$OUT" "... and names it"
run_mt 0 probe --from trace "$T_TMP/int64.json" --table "$TAB" --json
eq "$(cum)" "('cpu_fallback', ['int64'], ['CPU fallback only for int64; seen with int64'])" "cumsum seen with int64: CPU fallback"
# an aten entry limited to dtypes works the same way
sed 's/^  aten::add: {status: device}$/  aten::add: {status: device}\n  aten::cumsum: {status: cpu_fallback, dtypes: {fallback: [bfloat16, float32]}}/' "$TAB" >"$T_TMP/aten.yaml"
run_mt 0 probe --from trace "$T_TMP/float32.json" --table "$T_TMP/aten.yaml" --json
eq "$(cum)" "('cpu_fallback', ['float32'], ['CPU fallback only for bfloat16, float32; seen with float32'])" "an aten entry's dtypes"
run_mt 0 probe --from trace "$T_TMP/int64.json" --table "$T_TMP/aten.yaml" --json
eq "$(json '[o["status"] for o in j["ops"] if o["op"]=="aten::cumsum"][0]')" device "... int64 not among them: on the device"
finish
