#!/usr/bin/env bash
# Runs & clocks: an imported MLPerf log reaches the target at an evaluation
# that has no step (MLPerf counts epochs): the preview says when, never
# "step -1".
. "$(dirname "$0")/lib/harness.bash"

new_trial mlperf-target
python3 - "$REPO/.mtrial/trial.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("  metric:\n", "  metric: eval_accuracy\n", 1)
s = s.replace("  threshold:\n", "  threshold: 0.759\n", 1)
s = s.replace("  direction:\n", "  direction: higher\n", 1)
open(p, "w").write(s)
PY
mt runs import --system baseline \
	"$MT_SOURCE_DIR/tests/data/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt" >/dev/null

start_shell 100 30
start_wizard
keys j j j Enter
check "the run listed, reached" wait_for '#1   baseline  -           success'
check "the preview says when it reached the target" wait_for 'target   reached 26m44s after run start'
check "no step that is not there" test "$(screen | grep -c 'step -1')" -eq 0
finish
