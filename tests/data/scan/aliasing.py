"""Every way of importing torch names that the scan must resolve."""
import os
import torch
import torch as th
import torch.nn as nn
import torch.nn.functional as F
from torch import optim, autograd as ag
from torch.nn import functional as F2, Linear
from torch.utils.data import (
    DataLoader,
    Dataset as DS,
)
import numpy as np, torch.distributed as dist
from . import sibling  # the repository's own: ignored
from .models import Net  # ignored
from torch.nn.functional import *  # star: binds nothing


def build():
    layer = Linear(4, 8)
    act = nn.GELU()
    x = th.randn(2, 4)
    y = F.gelu(layer(x)) + F2.relu(x @ x.T)
    opt = optim.AdamW(layer.parameters(), lr=1e-3)
    g = ag.grad(y.sum(), x, create_graph=True)
    dl = DataLoader(DS(), batch_size=4)
    z = np.zeros(3)  # numpy is not torch
    dist.all_reduce(y)
    os.path.join("a", "b")
    return act, opt, g, dl, z, Net, sibling


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8, bias=False)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x):
        return self.norm(self.proj(x)).view(-1).contiguous()
