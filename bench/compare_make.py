#!/usr/bin/python3
"""Writes the inputs of bench/compare: DIR/ref.safetensors and
DIR/cand.safetensors, one float32 tensor "x" of N elements each (default
128M = 512 MB), the candidate a few ulps off the reference and 10 elements
far off. Usage: /usr/bin/python3 compare_make.py DIR [N]"""
import json
import os
import struct
import sys

import torch


def write(path, t):
    h = json.dumps({"x": {"dtype": "F32", "shape": [t.numel()],
                          "data_offsets": [0, 4 * t.numel()]}}).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.write(t.numpy().tobytes())


def main():
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 128 << 20
    os.makedirs(out, exist_ok=True)
    g = torch.Generator().manual_seed(0)
    ref = torch.randn(n, generator=g)
    write(os.path.join(out, "ref.safetensors"), ref)
    cand = ref * (1 + 1e-7)
    cand[torch.randint(0, n, (10,), generator=g)] += 0.5
    write(os.path.join(out, "cand.safetensors"), cand)


if __name__ == "__main__":
    main()
