#!/usr/bin/env python3
"""A synthetic repository for bench/scan's memory figure.

    bench/make_repo.py GIT_DIR [FILES]

Writes a bare repository with one commit of FILES (default 50,000) Python
files, 250 to a directory, through `git fast-import` (one pack, as a clone
would have). Every file differs (no two share a blob), most are plain
Python (a class, a few functions, string and list calls), and one in
TORCH_EVERY (25) is a small PyTorch module with a dozen torch calls and
tensor methods, so the scan reports far fewer call sites per file than a
model repository does: what grows is the number of files, not the calls.
Deterministic: the same FILES gives the same tree id.
"""
import os
import subprocess
import sys

TORCH_EVERY = 25

PLAIN = '''"""Helpers for part {i} of the pipeline."""
import os
import json


class Record{i}:
    def __init__(self, name, values):
        self.name = name
        self.values = list(values)

    def describe(self):
        parts = self.name.split("_")
        return "-".join(parts) + ":" + str(len(self.values))


def load_{i}(path):
    with open(os.path.join(path, "part{i}.json")) as f:
        data = json.load(f)
    return [Record{i}(k, v) for k, v in data.items() if v]


def total_{i}(records):
    return sum(len(r.values) for r in records) + {i}
'''

TORCH = '''"""Model block {i}."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block{i}(nn.Module):
    def __init__(self, dim={d}):
        super().__init__()
        self.proj = nn.Linear(dim, dim * 4)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        h = self.norm(x)
        h = F.gelu(self.proj(h))
        h = h.view(x.shape[0], -1, {d})
        w = torch.softmax(h.mean(dim=-1), dim=-1)
        y = torch.einsum("bn,bnd->bd", w, h)
        return torch.cat([x, y.unsqueeze(1)], dim=1).contiguous()


def make_{i}():
    x = torch.randn(2, 8, {d})
    return Block{i}()(x).sum()
'''


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_repo.py GIT_DIR [FILES]")
    gitdir = sys.argv[1]
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 50000
    subprocess.run(["git", "init", "-q", "--bare", gitdir], check=True)
    env = dict(os.environ, GIT_DIR=gitdir)
    fi = subprocess.Popen(["git", "fast-import", "--quiet"], stdin=subprocess.PIPE, env=env)
    out = fi.stdin
    msg = b"synthetic repository for bench/scan\n"
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer bench <bench@example.com> 1700000000 +0000\n")
    out.write(b"data %d\n%s" % (len(msg), msg))
    for i in range(files):
        text = (TORCH if i % TORCH_EVERY == 0 else PLAIN).format(i=i, d=64 + i % 64)
        data = text.encode()
        path = "pkg%03d/mod%05d.py" % (i // 250, i)
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
    out.close()
    if fi.wait() != 0:
        sys.exit("git fast-import failed")
    subprocess.run(["git", "--git-dir", gitdir, "symbolic-ref", "HEAD", "refs/heads/main"],
                   check=True)


if __name__ == "__main__":
    main()
