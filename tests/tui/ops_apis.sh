#!/usr/bin/env bash
# The Ops & compatibility step on a probe against a table that lists public
# APIs: the APIs are listed, as `mtrial probe` and the report list them,
# each with its status letter, call count and source; the bar and legend
# count the APIs and the legend gives the ops' count and share beside; a
# tensor method's API says its receiver is assumed a tensor; a supported
# API's kind is its condition; the filter finds an API by its aten op; the
# API in full names its op and kind; r records a finding about the API
# selected. A probe by op keeps the op list.
. "$(dirname "$0")/lib/harness.bash"

command -v jq >/dev/null || { echo "jq is needed" >&2; echo "0 passed, 1 failed"; exit 1; }
export XDG_CACHE_HOME=$T/cache XDG_DATA_HOME=$T/data
mkdir -p "$REPO"
cat >"$REPO/train.py" <<'EOF'
import torch
import torch.distributed as dist
x = torch.ones(3)
y = torch.cumsum(x, 0)
dist.all_reduce(y)
w = y.masked_scatter(y > 0, y)
v = w.masked_scatter(w > 0, w)
EOF
git init -q "$REPO"
git -C "$REPO" add -A
git -C "$REPO" -c user.name=t -c user.email=t@example.com commit -qm fixture
(cd "$REPO" && "$MTRIAL" init --repo "$REPO" --name apis-trial) >/dev/null

TABLES=$XDG_DATA_HOME/mtrial/tables
mkdir -p "$TABLES"
cat >"$TABLES/compat-apitab.yaml" <<'EOF'
schema: mtrial-compat/1
name: apitab
backend: torchneuron
version: "2.14"
kind: documented
source: {url: "https://example.com/apitab"}
retrieved: 2026-11-06
apis:
  torch.cumsum: {status: cpu_fallback, kind: native, ops: [aten::cumsum], dtypes: {fallback: [int64]}}
  torch.distributed.all_reduce: {status: device, kind: process-group}
  torch.Tensor.masked_scatter: {status: unsupported}
EOF
mt scan >/dev/null
mt probe --table apitab >/dev/null
report=$T/report.json
mt report --format json >"$report"
r() { jq -r "$1" "$report"; }

start_shell 80 30 XDG_CACHE_HOME="$XDG_CACHE_HOME" XDG_DATA_HOME="$XDG_DATA_HOME"
start_wizard
keys j
check "the probe lists APIs" wait_for "│ $(r '.probe.apis | length') APIs(, blockers first)?  "
check "... under an API column" wait_for '│   API  +calls source'
for pair in "D device" "P partial" "C cpu_fallback" "U unsupported" "? unknown"; do
	st=${pair#* }
	n=$(r ".probe.summary.apis.$st")
	check "the legend counts $st APIs as the report does ($n)" shows "${pair%% *} $st $n"
done
check "... with the APIs' share, and the ops' count and share" \
	shows "$(r .probe.summary.apis.support_percentage)% of APIs supported; $(r .probe.summary.ops) ops, $(r .probe.summary.support_percentage)%"

# each row as "LETTER NAME CALLS SOURCE", from the report and from the screen
want_rows=$(jq -r '.probe.apis[] | "\({device: "D", partial: "P", cpu_fallback: "C",
	unsupported: "U"}[.status] // "?") \(.api) \(.count) \(.source |
	sub("^table:[^:]*:"; "table line "))"' "$report")
rows_on_screen() { screen | sed -nE 's/^.*│ ([DPCU?]) (torch[^ ]*) +([0-9]+) (.*[^ ]) *$/\1 \2 \3 \4/p'; }
same_rows() { [ "$(rows_on_screen)" = "$want_rows" ]; }
check "the APIs are listed as the report lists them, blockers first" wait_cmd same_rows
check "the first API's details: its status, source and op" \
	wait_for '│   U unsupported  table:apitab:[0-9]+  aten::masked_sca'
check "... and that its receiver is assumed a tensor" \
	wait_for '│   when  a tensor method: the receiver is assumed to'

keys /
text cumsum
check "/ finds an API by its aten op" wait_for "│ 1 of $(r '.probe.apis | length') APIs: \"cumsum\"  Esc shows all\$"
check "... torch.cumsum" wait_for '│ C torch\.cumsum +1 table line [0-9]+$'
keys Enter Enter
check "Enter shows the API in full" wait_for '│ torch\.cumsum$'
check "... its op and kind" wait_for '│   calls     1: aten::cumsum, native$'
check "... its dtype condition" wait_for '│   when      CPU fallback only for int64; the dtypes'
keys Escape Escape
keys /
text all_reduce
keys Enter
check "a supported API with a process group" wait_for '│ D torch\.distributed\.all_reduce +1 table line [0-9]+$'
check "... its kind is its condition" wait_for '│   when  needs a process group:'
keys r
check "r on an API (one that runs no aten op) asks for that API's status" \
	wait_for 'torch\.distributed\.all_reduce on the candidate:'
keys 3
wait_for '^note '
text "hangs without a process group on 2.14.3 (t)"
keys Enter
check "the finding is about the API, and the probe runs again" \
	wait_for '^Finding #1 recorded: torch\.distributed\.all_reduce is unsupported; probe #[0-9]+ show'
check "... recorded as mtrial override records an API" \
	test "$(mt override --json | jq -r '.[0] | "\(.api) \(.status)"')" = "torch.distributed.all_reduce unsupported"
check "the API shows its new status and where it came from" \
	wait_for '│   U unsupported  override:journal#1  \(no aten op\)$'
keys Escape

# a probe by op: the list is of ops again
mt probe --table torch-neuron-inf1 >/dev/null
check "a probe against a table without APIs lists ops" wait_for '│ [0-9]+ ops(, blockers first)?  '
check "... under an op column" wait_for '│   op  +calls source'

# T imports a table as `mtrial tables import` does, then p's menu offers it
printf '%s\n' '## torch' '| API | Supported | Limitations |' '|---|---|---|' \
	'| cumsum | CPU_FALLBACK | aten::cumsum for int64 |' '| ones | Y | Native |' >"$T/vendor_api.md"
printf '%s\n' '| API | Supported |' '|---|---|' '| torch.cumsum | maybe |' >"$T/broken.md"
keys T
check "T asks for the table" wait_for '^import a table \(file or https URL\):'
text "$T/broken.md"
keys Enter
check "a table it cannot read: the message names the file and line" wait_for '^Not imported: .*broken\.md:3'
check "... nothing written" test ! -e "$XDG_DATA_HOME/mtrial/tables/compat-broken.yaml"
keys T
text "$T/vendor_api.md"
keys Enter
check "the import says what the table holds" wait_for '^Table vendor_api imported: 2 APIs \(1 on device\)'
check "... written where mtrial tables import writes" test -s "$XDG_DATA_HOME/mtrial/tables/compat-vendor_api.yaml"
keys p
check "... and p's menu offers it" wait_for '│ +[0-9]+ +vendor_api +2026-'
keys Escape
finish
