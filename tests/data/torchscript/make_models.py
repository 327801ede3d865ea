"""Writes the TorchScript archives and the impostors tests/cli/ops.sh reads.

Run with Debian's python3-torch: /usr/bin/python3 make_models.py OUTDIR.
Line numbers matter: the test checks that ops point back to these lines.
"""
import os
import sys
import zipfile

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return torch.nn.functional.gelu(self.norm(self.fc(x)))  # line 21


class Net(nn.Module):
    """Nested modules, a branch, a loop, an exported second method."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(8, 2)

    def forward(self, x, n: int):
        for b in self.blocks:
            x = b(x)
        if n > 2:
            x = x.double()  # line 36: float64 on the way
        i = 0
        while i < n:
            x = torch.relu(x)  # line 39: inside a loop
            i += 1
        return self.head(x.float())  # line 41

    @torch.jit.export
    def embed(self, x):
        return torch.softmax(x, dim=-1)  # line 45


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.flatten(torch.max_pool2d(self.conv(x), 2), 1)


class Meta(nn.Module):
    """Reads tensor metadata (dim, size) on the host and reshapes."""

    def forward(self, x):
        if x.dim() > 2:
            x = x.reshape(x.size(0), -1)
        return torch.sigmoid(x).sum().item()


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    net = torch.jit.script(Net())
    net.save(os.path.join(out, "net.pt"))
    torch.jit.trace(Conv(), torch.randn(1, 3, 8, 8)).save(os.path.join(out, "traced.pt"))
    torch.jit.script(Meta()).save(os.path.join(out, "meta.pt"))
    # torch.save: a zip without code/ (weights), and the legacy pickle format
    torch.save(Net().state_dict(), os.path.join(out, "checkpoint.pt"))
    torch.save(Net().state_dict(), os.path.join(out, "legacy.pt"),
               _use_new_zipfile_serialization=False)
    with open(os.path.join(out, "net.pt"), "rb") as f:
        whole = f.read()
    with open(os.path.join(out, "truncated.pt"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    # the entries of an archive, none of them valid: libtorch must refuse it
    with zipfile.ZipFile(os.path.join(out, "impostor.pt"), "w") as z:
        z.writestr("impostor/code/__torch__.py", "this is not TorchScript(\n")
        z.writestr("impostor/constants.pkl", b"\x80\x02garbage")
        z.writestr("impostor/data.pkl", b"\x80\x02garbage")
        z.writestr("impostor/version", "3\n")


if __name__ == "__main__":
    main(sys.argv[1])
