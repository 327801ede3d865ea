"""The model and inputs of tests/cli/check_model.sh, and what torch itself
computes for each recipe (expected.json: the largest absolute difference of
each output from the reference run). Run with Debian's python3-torch:
/usr/bin/python3 make.py OUTDIR."""
import json
import os
import sys

import torch
import torch.nn as nn


class MLP(nn.Module):
    """Two outputs, a tuple: the prediction and a per-row activation sum."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 64)
        self.b = nn.Linear(64, 4)

    def forward(self, x, y):
        h = torch.nn.functional.gelu(self.a(x + y))
        return self.b(h), h.sum(-1)


RECIPES = {"fp32": ("float32", "float32"), "bf16": ("float32", "bfloat16"),
           "fp16": ("float32", "float16"), "f64-as-f32": ("float64", "float32")}


def run(model, inputs, dtype):
    m = torch.jit.load(model)
    m.eval()
    m.to(getattr(torch, dtype))
    with torch.no_grad():
        return m(*[t.to(getattr(torch, dtype)) for t in inputs])


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = os.path.join(out, "mlp.pt")
    torch.jit.script(MLP()).save(model)
    inputs = [torch.randn(8, 16), torch.randn(8, 16) * 0.1]
    torch.save(inputs, os.path.join(out, "inputs.pt"))
    expected = {}
    for name, (ref, cand) in RECIPES.items():
        try:
            r, c = run(model, inputs, ref), run(model, inputs, cand)
        except RuntimeError as e:  # an op without a kernel for the dtype on CPU
            expected[name] = {"error": str(e).splitlines()[0]}
            continue
        expected[name] = {
            "max_abs": [float((a.double() - b.double()).abs().max()) for a, b in zip(r, c)],
        }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
