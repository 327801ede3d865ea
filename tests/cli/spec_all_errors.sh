# mtrial spec reports every error of trial.yaml, each with its line, column
# and field, not only the first; exit 2; a valid file still says valid.
. "$MT_SOURCE_DIR/tests/lib.sh"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name all-errors
S=.mtrial/trial.yaml
cat >"$S" <<'YAML'
schema: 1
name: all-errors
bogus: 1
systems:
  baseline: {accelerator: A100, count: -3, hosts: two}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, frob: 2}
topology: {global_batch: 10, micro_batch: 3, gradient_accumulation: 1, parallelism: {data: 2}}
quality_target: {metric: eval_loss, threshold: abc, direction: sideways}
criteria:
  - {name: a, kind: quality}
  - {name: a, kind: nonsense}
YAML
run_mt 2 spec
for want in "$S:3:1: unknown key 'bogus'" "$S:5:40: 'systems.baseline.count' is out of range" \
	"$S:5:51: 'systems.baseline.hosts' must be an integer" "$S:6:60: unknown key 'frob'" \
	"$S:8:48: 'quality_target.threshold' must be a number" "$S:8:64: 'quality_target.direction' must be one of" \
	"$S:11:21: 'criteria.1.kind' must be one of" "$S:7:26: 'topology.global_batch' is 10" \
	"$S:11:12: 'criteria.1.name' is 'a', already"; do
	has "$want" "$ERR" "every error said: ${want#*: }"
done
eq "$(printf '%s\n' "$ERR" | grep -c "$S:")" 9 "nine errors, one a line"
run_mt 2 spec --json
eq "$(json 'len(j["error"].splitlines())')" 9 "--json: every error"
# one error alone is said as before
cat >"$S" <<'YAML'
schema: 1
name: one-error
quality_target: {metric: eval_loss, threshold: abc, direction: lower}
YAML
run_mt 2 spec
eq "$(printf '%s\n' "$ERR" | grep -c "$S:")" 1 "one error, one line"
finish
