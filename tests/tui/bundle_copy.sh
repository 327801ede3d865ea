#!/usr/bin/env bash
# The wizard in a read-only trial made by `mtrial init --from-bundle`
# (issue 20): importing a run (I) is refused with the core's words, naming
# the bundle, and nothing is recorded; a bundle of the copy (b) is written,
# the copy's record being what it carries, and it verifies.
. "$(dirname "$0")/lib/harness.bash"

new_trial copy-trial
mt runs import --system baseline \
	"$MT_SOURCE_DIR/tests/data/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt" \
	>/dev/null 2>&1
mt bundle -o "$T/orig.tar.gz" >/dev/null
C=$T/copy
mt init --from-bundle "$T/orig.tar.gz" "$C" >/dev/null
cp "$MT_SOURCE_DIR/tests/data/curves/ref.csv" "$T/ref.csv"
events() { cat "$C"/events/*.jsonl | sha256sum; }
before=$(events)

start_shell 80 24 MTRIAL_DIR="$C"
start_wizard
keys j j j Enter
check "the copy's run" wait_for '│ 1 attempts?, newest first'
keys I
text "$T/ref.csv"
keys Enter 1 1
check "an import is refused: the trial is read-only, naming the bundle" \
	wait_for 'Not imported: this trial was made from bundle orig\.tar\.gz: read-only'
check "nothing recorded" test "$(events)" = "$before"

keys b
check "b away from the Summary says where it works" \
	wait_for 'b writes a bundle from the Summary step \(mtrial bundle -o FILE does it'
keys Escape G b C-u
text "$T/again.tar.gz"
keys Enter n
check "a bundle of the copy is written" wait_for "Bundle written: $T/again\.tar\.gz"
check "... and verifies" mt bundle verify "$T/again.tar.gz"
check "... with the run's log" \
	test "$(mt bundle verify "$T/again.tar.gz" --json | jq -r .logs)" = 1

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
