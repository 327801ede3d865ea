#!/bin/sh
# A fake training loop for tests/cli/run.sh and tests/tui/runs_step.sh:
# start-up, then 12 steps of 50 ms with one of 600 ms at step 9 (a
# recompilation), an evaluation every 4 steps: eval_loss 2.30, 2.10 (below
# a 2.2 target), 1.90.
sleep 0.4
for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
	if [ $s = 9 ]; then sleep 0.6; else sleep 0.05; fi
	echo "mtrial:step=$s loss=2.5 tokens=4096"
	case $s in 4) echo "mtrial:eval step=4 eval_loss=2.30" ;; 8) echo "mtrial:eval step=8 eval_loss=2.10" ;;
	12) echo "mtrial:eval step=12 eval_loss=1.90" ;; esac
done
