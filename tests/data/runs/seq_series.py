"""Writes a CSV series (step,time,loss,seq) of 300 steps to argv[1]: each
step 0.2 + 0.0004 L s at a length L drawn from six, 120 s more on the first
step of each new length (a compilation), the time in seconds from the start
(the first step at 30 s plus its own). Deterministic (seed 16). Used by
tests/cli/buckets.sh and tests/tui/compilation_page.sh."""
import random
import sys

random.seed(16)
t, seen, out = 30.0, set(), ["step,time,loss,seq"]
for s in range(1, 301):
    L = random.choice([128, 256, 384, 512, 1024, 2048])
    t += 0.2 + 0.0004 * L + (120 if L not in seen else 0)
    seen.add(L)
    out.append(f"{s},{t:.3f},2.0,{L}")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
