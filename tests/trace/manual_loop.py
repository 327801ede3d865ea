# A training loop without torch.optim, as pytorch/examples'
# word_language_model trains by default: the data loaded line by line into
# one tensor per line (set-up, of many shapes), then steps whose weights are
# updated by hand (p.data.add_(p.grad, alpha=-lr)). For tests/cli/optrace.sh.
#   manual_loop.py [--steps N] [--lines N] [--sleep-at K]
# --sleep-at K sleeps at step K (until a signal stops it) after printing
# "sleeping".
import argparse
import sys
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=4)
ap.add_argument("--lines", type=int, default=30)
ap.add_argument("--sleep-at", type=int)
a = ap.parse_args()

torch.manual_seed(0)
# set-up: one tensor per "line" of a corpus, each of another length
ids = torch.cat([torch.tensor(list(range(n % 7 + 1))).type(torch.int64)
                 for n in range(a.lines)])
emb = torch.nn.Embedding(8, 6)
head = torch.nn.Linear(6, 8)
params = list(emb.parameters()) + list(head.parameters())
lr = 0.5
for step in range(a.steps):
    if step == a.sleep_at:
        print("sleeping", flush=True)
        time.sleep(60)
    x = ids[step * 5:step * 5 + 5]
    y = ids[step * 5 + 1:step * 5 + 6]
    for p in params:
        p.grad = None
    loss = torch.nn.functional.cross_entropy(head(emb(x)), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 0.25)
    for p in params:
        p.data.add_(p.grad, alpha=-lr)
    print("step", step, "loss", repr(loss.item()))
sys.stdout.flush()
