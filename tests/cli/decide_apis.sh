# mtrial decide's ops criterion against an API-keyed table: an API the
# probe leaves unknown that runs no aten op of its own (a collective) keeps
# the criterion unknown, never met, even when every op is on the device
# ("unknown is never counted to look small"); the table's word on it, or the
# team's override of the API, settles it either way.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R=$T_TMP/repo
mkdir -p "$R" && git -C "$R" -c init.defaultBranch=main init -q
cat >"$R/train.py" <<'PY'
import torch
import torch.distributed as dist
x = torch.add(torch.ones(3), 1)
dist.all_reduce(x)
PY
git -C "$R" add -A && git -C "$R" commit -qm init
TAB=$T_TMP/tab.yaml
table() {
	cat >"$TAB" <<YAML
schema: mtrial-compat/1
name: tab
backend: test
version: "1"
kind: documented
source: {url: "https://example.com/tab"}
retrieved: 2026-11-06
ops:
  aten::add: {status: device}
  aten::ones: {status: device}
apis:
  torch.ones: {status: device}
$1
YAML
}
crit() { json "[(c[\"status\"], c[\"evidence\"]) for c in j[\"criteria\"] if c[\"name\"]==\"ops-ok\"][0][$1]"; }

cd "$R"
run_mt 0 init --name decide-apis
cat >.mtrial/trial.yaml <<YAML
schema: 1
name: decide-apis
probe:
  table: $TAB
criteria:
  - {name: ops-ok, kind: ops, threshold: 0}
YAML
run_mt 0 scan
table ""
run_mt 0 probe --json
eq "$(json '[(a["status"], a["op"]) for a in j["apis"] if a["api"]=="torch.distributed.all_reduce"][0]')" \
	"('unknown', None)" "the collective runs no aten op and no table lists it"
eq "$(json 'j["summary"]["unknown"]')" 0 "every op is known: the op counts alone would pass"
run_mt 1 decide --json
eq "$(crit 0)" unknown "an unknown API without an op keeps the ops criterion unknown"
has "1 API(s) that run no aten op of their own have no known status: torch.distributed.all_reduce" \
	"$(crit 1)" "... and names it"
eq "$(json 'j["verdict"]')" NOT_ENOUGH_EVIDENCE "the verdict is not a go"
has "mtrial override OP|API STATUS" "$(json '[m["command"] for m in j["missing"] if m["criterion"]=="ops-ok"][0]')" \
	"what settles it, an API override among them"
run_mt 1 decide
has "1 API(s) that run no aten op of their own have no known status" "$OUT" "the text says so too"

# the table lists it: met
table "  torch.distributed.all_reduce: {status: device, kind: process-group}"
run_mt 0 probe
run_mt 0 decide --json
eq "$(crit 0)" met "the table's entry settles it: met"

# the team's override of the API outranks the table: not met
run_mt 0 override torch.distributed.all_reduce unsupported --note "hangs on 2.14.3 (t)"
run_mt 1 probe
run_mt 1 decide --json
eq "$(crit 0)" not_met "an API override saying unsupported: not met"
has "torch.distributed.all_reduce (override:journal#1)" "$(crit 1)" "... naming the override"
finish
