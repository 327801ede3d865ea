#!/usr/bin/env bash
# What trial.yaml says shows where it belongs: both systems in Runs & clocks
# (and the title line), the track descriptions and budget in Tracks & effort,
# the quality target and the criteria in the Summary. An edit made while the
# wizard is open shows within seconds; an invalid one is reported and the
# last good spec stays.
. "$(dirname "$0")/lib/harness.bash"

new_trial spec-trial
SPEC=$REPO/.mtrial/trial.yaml

# set_nth KEY N VALUE: the Nth "KEY:" line of trial.yaml gets VALUE.
set_nth() {
	awk -v key="$1" -v n="$2" -v val="$3" '
		$1 == key ":" && ++seen == n { sub(/:.*/, ": " val) }
		{ print }' "$SPEC" >"$SPEC.new" && mv "$SPEC.new" "$SPEC"
}
set_nth accelerator 1 '"NVIDIA H100 80GB"'
set_nth count 1 8
set_nth hourly 1 98.32
set_nth currency 1 USD
set_nth accelerator 2 '"AWS Trainium2"'
set_nth count 2 16
set_nth hourly 2 46.5
set_nth currency 2 USD
set_nth metric 1 '"eval/loss"'
set_nth threshold 1 2.1
set_nth direction 1 lower
set_nth description 1 '"device=neuron and nothing else"'
set_nth budget_hours 1 40
awk '{ print } /^criteria:/ {
	print "  - name: loss-parity"
	print "    kind: quality"
	print "    threshold: 2.1"
	print "  - name: cheaper"
	print "    kind: cost_to_quality"
	print "    threshold: 0.8" }' "$SPEC" >"$SPEC.new" && mv "$SPEC.new" "$SPEC"
check "the edited trial.yaml is valid and holds the values" \
	bash -c "cd '$REPO' && '$MTRIAL' spec --json | jq -e '
		.systems.candidate.accelerator == \"AWS Trainium2\" and
		(.criteria | length) == 2' >/dev/null"

start_shell 80 24
start_wizard
check "the title names both accelerators" \
	wait_for '^ mtrial · .* NVIDIA H100 80GB → AWS Trainium2$'
keys j j j
check "Runs & clocks: the baseline" wait_for '│   baseline +NVIDIA H100 80GB$'
check "... its count and price" wait_for '│ +8 per host, 98.32 USD/h$'
check "... the candidate" wait_for '│   candidate +AWS Trainium2$'
check "... its count and price" wait_for '│ +16 per host, 46.5 USD/h$'
keys j
check "Tracks & effort: the track's description" \
	wait_for '│   portability +device=neuron and nothing else$'
check "... the optimized track's budget" wait_for '│ +budget 40 h$'
keys j
check "Summary: the criteria" wait_for '│   \[\?\] unknown loss-parity \(quality\)$'
check "... all of them" wait_for '│   \[\?\] unknown cheaper \(cost_to_quality\)$'
check "... the first one's threshold" wait_for '│   threshold  2.1, value not known$'
check "... the verdict: no run yet, not enough evidence" \
	wait_for '│ Verdict: NOT ENOUGH EVIDENCE$'
keys Enter NPage
check "... the quality target below" wait_for '│   metric +eval/loss$'
check "... threshold and direction" wait_for '│   threshold +2.1 \(lower is better\)$'

set_nth accelerator 2 '"AWS Trainium1"'
check "an edit of trial.yaml shows while the wizard is open" \
	wait_for '^ mtrial · .* NVIDIA H100 80GB → AWS Trainium1$'
check "... and the message line says so" wait_for '^trial.yaml reloaded$'
set_nth count 2 many
check "an invalid edit is reported with its place in the file" \
	wait_for '^trial.yaml not reloaded: .*trial.yaml:[0-9]+:[0-9]+: '
check "... and the last good spec stays" wait_for '│   threshold +2.1 \(lower is better\)$'
check "... as does the title" wait_for '→ AWS Trainium1$'
masked_screen | sed 's/^/  | /'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
