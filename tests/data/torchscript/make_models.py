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


class Res(nn.Module):
    """As torchvision's ResNet: forward calls self._forward_impl, whose ops
    run once per forward, and a branch that may not be taken."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3)
        self.conv2 = nn.Conv2d(4, 4, 3)

    def _forward_impl(self, x):
        x = self.conv1(x)
        if x.size(0) > 1:
            x = torch.relu(x)
        return self.conv2(x)

    def forward(self, x):
        return self._forward_impl(x)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    net = torch.jit.script(Net())
    net.save(os.path.join(out, "net.pt"))
    torch.jit.trace(Conv(), torch.randn(1, 3, 8, 8)).save(os.path.join(out, "traced.pt"))
    torch.jit.script(Meta()).save(os.path.join(out, "meta.pt"))
    torch.jit.script(Res()).save(os.path.join(out, "res.pt"))
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
    # meta.pt with its code nested deep: brackets (stored and deflated), blocks
    deep = "(" * 100000 + "x" + ")" * 100000
    rewrite(out, "meta.pt", "nested150.pt", "(" * 150 + "x" + ")" * 150, zipfile.ZIP_STORED)
    rewrite(out, "meta.pt", "deep.pt", deep, zipfile.ZIP_STORED)
    rewrite(out, "meta.pt", "deepz.pt", deep, zipfile.ZIP_DEFLATED)
    rewrite(out, "meta.pt", "indented.pt", None, zipfile.ZIP_STORED)
    # net.pt whose constants are tuples nested 2,000,000 deep: libtorch's
    # unpickler builds them, and freeing them recursively overflows its stack
    n = 2000000
    with zipfile.ZipFile(os.path.join(out, "net.pt")) as zin, \
            zipfile.ZipFile(os.path.join(out, "crash.pt"), "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("/constants.pkl"):
                data = b"\x80\x02" + b"(" * n + b")" + b"t" * n + b"."
            zout.writestr(info, data)


def rewrite(out, src, dst, expr, compression):
    """A copy of archive src whose code uses expr for its first `x` (None:
    wraps the code's first statement in 120 nested ifs)."""
    with zipfile.ZipFile(os.path.join(out, src)) as zin, \
            zipfile.ZipFile(os.path.join(out, dst), "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("code/__torch__.py"):
                text = data.decode()
                if expr is not None:
                    text = text.replace("(x", "(" + expr, 1)
                else:
                    text = text.replace("\n", "\n" + "".join(
                        "  " * i + "if True:\n" for i in range(120)) + "  " * 120 + "pass\n", 1)
                data = text.encode()
            zout.writestr(info, data, compress_type=compression)


if __name__ == "__main__":
    main(sys.argv[1])
