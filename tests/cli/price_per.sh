# A run is priced for what it used: trial.yaml's price.hourly is per
# instance (a host; the default) x the run's hosts, or per device
# (price.per: device) x its devices; a run whose hosts are not known is not
# priced as if it were on one host: no cost, and why. `mtrial spec` checks
# price.per with its line and column.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name price

# 1800 s of steps: half an hour
L=$T_TMP/run.log
for s in $(seq 0 18); do echo "mtrial:step=$s loss=2.0 time_ms=$((1764496840000 + 100000 * s))"; done >"$L"
spec() {
	cat >.mtrial/trial.yaml <<YAML
schema: 1
name: price
systems:
  baseline: {accelerator: H100, price: {hourly: 2, currency: USD}}
  candidate: {accelerator: Trainium2, $1}
YAML
}
cost() { run_mt 0 runs show "$1" --json; json "$2"; }

# no per: per instance, x the run's 4 hosts
spec 'price: {hourly: 10, currency: USD}'
run_mt 0 spec
run_mt 0 runs import "$L" --system candidate --devices 32 --hosts 4 --json
id=$(json 'j["imported"][0]')
eq "$(cost "$id" 'j["hourly_cost"], round(j["cost"] / j["accounting"]["hours"], 6)')" "40.0 40.0" \
	"per instance: 10 x 4 hosts an hour, not one host's 10"

# per device: x its 32 devices, derived when read
spec 'price: {hourly: 10, per: device, currency: USD}'
run_mt 0 spec
eq "$(cost "$id" 'j["hourly_cost"]')" 320.0 "per device: 10 x 32 devices"

# hosts not known (neither the run nor trial.yaml says): no cost, and why
another_log "$L" "$L.2"
run_mt 0 runs import "$L.2" --system candidate --devices 32 --json
id2=$(json 'j["imported"][0]')
spec 'price: {hourly: 10, currency: USD}'
eq "$(cost "$id2" 'j["cost"], j["hourly_cost"]')" "None None" "hosts not known: not priced as 1 host"
has "host count is not known" "$(cost "$id2" 'j["not_priced"]')" "... and says why"
# trial.yaml's hosts stand in where the run does not say
spec 'count: 16, hosts: 2, price: {hourly: 10, currency: USD}'
eq "$(cost "$id2" 'j["hourly_cost"]')" 20.0 "trial.yaml's hosts where the run says none"

# a bad per, named with its line and column
spec 'price: {hourly: 10, per: node}'
run_mt 2 spec
has "trial.yaml:5:" "$ERR" "a bad per: its line"
has "instance" "$ERR" "... and what it may be"
finish
