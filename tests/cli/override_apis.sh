# Overrides keyed by a public torch API (mtrial override torch.cumsum ...,
# trial.yaml probe.overrides api:): the probe applies one to that API's
# calls (observed > overrides > table > unknown), before an override of its
# op; an op reached only by overridden APIs follows the worst of them; text,
# --json, the override list and the report agree. A key that is neither an
# aten op nor a dotted torch API is refused naming the field, exit 2,
# nothing recorded.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
cat >"$R/train.py" <<'PY'
import torch
x = torch.ones(3)
y = torch.cumsum(x, 0)
z = y.cumsum(0)
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
apis:
  torch.cumsum: {status: cpu_fallback, kind: native, ops: [aten::cumsum]}
  torch.Tensor.masked_scatter: {status: unsupported}
YAML
line() { grep -n "^  $1:" "$TAB" | cut -d: -f1; }
api() { json "[(a[\"status\"], a[\"source\"], a.get(\"via\")) for a in j[\"apis\"] if a[\"api\"]==\"$1\"][0]"; }
op() { json "[(o[\"status\"], o[\"source\"], o.get(\"via\")) for o in j[\"ops\"] if o[\"op\"]==\"$1\"][0]"; }
yaml() { printf 'schema: 1\nname: ovapis\nprobe:\n  table: %s\n  overrides:\n%s\n' "$TAB" "$1" >"$R/.mtrial/trial.yaml"; }

cd "$R"
run_mt 0 init --name ovapis
run_mt 0 scan
yaml "    []"
run_mt 1 probe --json
eq "$(api torch.cumsum)" "('cpu_fallback', 'table:apitab:$(line torch.cumsum)', None)" "before: the table decides torch.cumsum"
eq "$(op aten::cumsum)" "('cpu_fallback', 'table:apitab:$(line torch.cumsum)', 'torch.cumsum')" "... and its op"

# --- bad keys: refused naming what is wrong, nothing recorded -----------------
for bad_key in cumsum torch torch. torch.cum-sum "torch.cumsum " numpy.sum aten:: 'torch..x'; do
	run_mt 2 override "$bad_key" device --note "x"
	has "'$bad_key' is neither an aten op (aten::add) nor a dotted torch API" "$ERR" "'$bad_key' refused"
done
run_mt 0 override --json
eq "$(json 'len(j)')" 0 "nothing recorded"

# --- an API override in the journal -------------------------------------------
run_mt 0 override torch.cumsum device --note "runs on the device with 2.14.3 (t, 2026-11-20)" --json
eq "$(json 'j.get("warning")')" None "an API is not checked against the aten registry"
ID=$(json 'j["id"]')
run_mt 0 override --json
eq "$(json '[(o.get("api"), o.get("op"), o["source"]) for o in j]')" "[('torch.cumsum', None, 'override:journal#$ID')]" \
	"the list names the API as api"
run_mt 0 override
has "torch.cumsum" "$OUT" "text list names the API"
run_mt 1 probe --json
eq "$(api torch.cumsum)" "('device', 'override:journal#$ID', None)" "the API's override decides its calls"
eq "$(json '[a["notes"] for a in j["apis"] if a["api"]=="torch.cumsum"][0]')" \
	"runs on the device with 2.14.3 (t, 2026-11-20)" "... with its note"
eq "$(api torch.Tensor.cumsum)" "('cpu_fallback', 'table:apitab:$(line torch.cumsum)', 'torch.cumsum')" \
	"another API reaching the op is not overridden"
eq "$(op aten::cumsum)" "('cpu_fallback', 'table:apitab:$(line torch.cumsum)', 'torch.cumsum')" \
	"an op also reached by an API without override keeps the table's answer"
run_mt 1 probe
has "torch.cumsum" "$OUT" "text"
has "torch.cumsum                                1 call   [override:journal#$ID]  aten::cumsum" "$(printf '%s\n' "$OUT" | sed -n '/^Supported, by the team.s overrides:/,/^[A-Z]/p')" "text lists the API under the overrides, with its source"

run_mt 0 override torch.Tensor.cumsum unsupported --note "fails on 2.14.3 for x.cumsum (t)" --json
ID2=$(json 'j["id"]')
run_mt 1 probe --json
eq "$(op aten::cumsum)" "('unsupported', 'override:journal#$ID2', 'torch.Tensor.cumsum')" \
	"an op reached only by overridden APIs follows the worst of them"
eq "$(json 'j["summary"]["apis"]["unsupported"]')" 2 "the summary counts the overridden API"
run_mt 1 probe
has "Unsupported APIs" "$OUT" "text lists the overridden API as unsupported"
has "torch.Tensor.cumsum" "$(printf '%s\n' "$OUT" | sed -n '/^Unsupported APIs/,/^[A-Z]/p')" "... under Unsupported"
run_mt 0 rm override "$ID2" --why "test"

# --- trial.yaml: api: outranks the journal; an API's outranks its op's ----------
yaml "    - api: torch.Tensor.masked_scatter
      status: cpu_fallback
      note: \"falls back on 2.14.3\"
    - op: aten::cumsum
      status: unsupported
      note: \"the op fails on 2.14.3\""
run_mt 0 spec
run_mt 1 probe --json
eq "$(api torch.Tensor.masked_scatter)" "('cpu_fallback', 'override:trial.yaml#1', None)" "trial.yaml api: decides"
eq "$(op aten::masked_scatter)" "('cpu_fallback', 'override:trial.yaml#1', 'torch.Tensor.masked_scatter')" \
	"... and the op only it reaches"
eq "$(api torch.cumsum)" "('device', 'override:journal#$ID', None)" "the API's own override before its op's"
eq "$(api torch.Tensor.cumsum)" "('unsupported', 'override:trial.yaml#2', None)" "an API without one takes its op's"
eq "$(op aten::cumsum)" "('unsupported', 'override:trial.yaml#2', None)" "the op's own override decides the op"
PROBE=$OUT

# --- the report names the override as the source -------------------------------
run_mt 0 report
has "\`torch.Tensor.masked_scatter\` (aten::masked_scatter) (1 calls; override:trial.yaml#1)" "$OUT" \
	"the report lists the API with its override"
has "| unsupported | $(OUT=$PROBE json 'j["summary"]["apis"]["unsupported"]') | $(OUT=$PROBE json 'j["summary"]["unsupported"]') |" \
	"$OUT" "the report's counts are the probe's"

has "- on device by the team's override \`torch.cumsum\` (aten::cumsum) (1 calls; override:journal#$ID): runs on the device with 2.14.3" \
	"$OUT" "the report lists an API the override put on the device, with its note"
run_mt 0 report --format html
has "on device by the team's override <code>torch.cumsum</code>" "$OUT" "... the HTML report too"
# the chart counts what the report's table lists: APIs, unknown drawn at its size
chart=$(printf '%s\n' "$OUT" | sed -n '/^<title>APIs by status on apitab<\/title>$/,/<\/svg>/p')
has "APIs called (the table lists APIs" "$chart" "the ops chart counts APIs, and says so"
for st in "on device:device" "CPU fallback:cpu_fallback" "unsupported:unsupported" "unknown:unknown"; do
	n=$(OUT=$PROBE json "j['summary']['apis']['${st#*:}']")
	if [ "$n" -gt 0 ]; then has "<title>${st%%:*}: $n</title>" "$chart" "the chart's ${st%%:*} bar is the APIs' count ($n)"
	else hasnt "<title>${st%%:*}:" "$chart" "no ${st%%:*} bar"; fi
done
eq "$(OUT=$PROBE json 'j["summary"]["apis"]["unknown"] > 0')" True "an unknown API is in the chart (torch.ones)"
run_mt 1 probe --table torch-neuron-inf1
run_mt 0 report --format html
has '<title>Ops by status on torch-neuron-inf1</title>' "$OUT" "a table without APIs: the chart counts ops"

# --- trial.yaml keys: each refused with its line and field ----------------------
for case in "api: cumsum|'probe.overrides.0.api' is 'cumsum', not a dotted torch API" \
	"op: torch.cumsum|'probe.overrides.0.op' is 'torch.cumsum', a torch API: write it as api:" \
	"op: cumsum|'probe.overrides.0.op' is 'cumsum', not an aten op" \
	"status: device|'probe.overrides.0' names no op and no api"; do
	yaml "    - ${case%%|*}
      status: device
      note: x"
	[ "${case%%|*}" = "status: device" ] && yaml "    - status: device
      note: x"
	run_mt 2 spec
	has "trial.yaml:6:" "$ERR" "'${case%%|*}': the line named"
	has "${case#*|}" "$ERR" "'${case%%|*}': the field named"
	run_mt 2 probe
	has "${case#*|}" "$ERR" "probe refuses it too"
done
yaml "    - op: aten::cumsum
      api: torch.cumsum
      status: device
      note: x"
run_mt 2 probe
has "trial.yaml:7:12: 'probe.overrides.0' names both an op and an API" "$ERR" "one override, one key"
run_mt 0 override --json
eq "$(json 'len(j)')" 1 "the journal's overrides are kept"
finish
