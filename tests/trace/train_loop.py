# A tiny training loop for tests/cli/optrace.sh: two Linear layers with ReLU,
# MSE loss, backward, plain SGD, a fixed seed and batch. Prints each loss
# exactly (repr), so runs with and without the tracer can be compared.
#   train_loop.py [--steps N] [--raise-at K] [--exit-at K STATUS] [--sched] [--lbfgs]
# --sched adds a StepLR scheduler (it re-wraps optimizer.step, as the tracer
# does); --lbfgs steps with a closure that runs the model.
import argparse

import torch
from tiny_model import make_model

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=5)
ap.add_argument("--raise-at", type=int)
ap.add_argument("--exit-at", type=int, nargs=2)
ap.add_argument("--sched", action="store_true")
ap.add_argument("--lbfgs", action="store_true")
a = ap.parse_args()

torch.manual_seed(0)
model = make_model()
if a.lbfgs:
    opt = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=2)
else:
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) if a.sched else None
x = torch.randn(4, 8)
y = torch.randn(4, 4)


def closure():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for step in range(a.steps):
    if step == a.raise_at:
        raise ValueError("boom at step %d" % step)
    if a.exit_at and step == a.exit_at[0]:
        raise SystemExit(a.exit_at[1])
    if a.lbfgs:
        loss = opt.step(closure)
    else:
        loss = closure()
        opt.step()
    if sched:
        sched.step()
    print("step", step, "loss", repr(loss.item()))
