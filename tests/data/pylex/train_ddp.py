#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Distributed data-parallel training of a small image classifier.

Written for the pylex corpus: the kind of CUDA-specific code that
`mtrial scan` has to find (device strings, AMP, NCCL, cudnn flags).
"""
from __future__ import annotations

import argparse
import math
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Optional

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


@dataclass
class Config:
    epochs: int = 10
    batch_size: int = 256
    lr: float = 3e-4
    weight_decay: float = 0.05
    warmup_steps: int = 1_000
    grad_clip: Optional[float] = 1.0
    amp_dtype: str = "bf16"
    channels: list[int] = field(default_factory=lambda: [64, 128, 256])
    seed: int = 0x5EED


class RandomImages(Dataset):
    def __init__(self, n: int = 50_000, size: int = 32, classes: int = 10):
        self.n, self.size, self.classes = n, size, classes

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(3, self.size, self.size, generator=g)
        y = torch.randint(0, self.classes, (), generator=g)
        return x, y


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = (nn.Identity() if stride == 1 and cin == cout
                     else nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                        nn.BatchNorm2d(cout)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.bn1(self.conv1(x)), inplace=True)
        h = self.bn2(self.conv2(h))
        return F.relu(h + self.skip(x))


class Net(nn.Module):
    def __init__(self, cfg: Config, classes: int = 10):
        super().__init__()
        layers, cin = [], 3
        for i, c in enumerate(cfg.channels):
            layers += [Block(cin, c, stride=1 if i == 0 else 2), Block(c, c)]
            cin = c
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(cin, classes)

    def forward(self, x):
        return self.head(self.body(x).mean(dim=(-2, -1)))


def lr_at(step: int, cfg: Config, total: int) -> float:
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, total - cfg.warmup_steps)
    return 0.5 * cfg.lr * (1.0 + math.cos(math.pi * progress))


def setup() -> tuple[int, int, torch.device]:
    dist.init_process_group(backend="nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    return rank, world, torch.device(f"cuda:{local}")


def train(cfg: Config) -> None:
    rank, world, device = setup()
    torch.manual_seed(cfg.seed + rank)
    data = RandomImages()
    sampler = DistributedSampler(data, shuffle=True, seed=cfg.seed)
    loader = DataLoader(data, batch_size=cfg.batch_size // world, sampler=sampler,
                        num_workers=4, pin_memory=True, drop_last=True)
    model = Net(cfg).to(device, memory_format=torch.channels_last)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model, device_ids=[device.index], gradient_as_bucket_view=True)
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=cfg.lr, betas=(0.9, 0.95), fused=True)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(cfg.amp_dtype)
    scaler = GradScaler(enabled=dtype is torch.float16)
    amp = autocast(dtype=dtype) if dtype else nullcontext()
    total = cfg.epochs * len(loader)
    step = 0
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        t0 = time.perf_counter()
        for x, y in loader:
            x = x.to(device, non_blocking=True).contiguous(memory_format=torch.channels_last)
            y = y.cuda(non_blocking=True)
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg, total)
            with amp:
                loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            if cfg.grad_clip:
                scaler.unscale_(opt)
                nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            scaler.step(opt)
            scaler.update()
            step += 1
            if step % 100 == 0 and rank == 0:
                torch.cuda.synchronize()
                mem = torch.cuda.max_memory_allocated() / 2**30
                print(f"epoch {epoch:>3d} step {step:>6,} loss {loss.item():.4f} "
                      f"lr {opt.param_groups[0]['lr']:.2e} mem {mem:5.1f} GiB "
                      f"{(time.perf_counter() - t0) * 1e3 / step:.1f} ms/step")
        if rank == 0:
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(),
                        "epoch": epoch}, f"ckpt_{epoch:03d}.pt")
    dist.barrier()
    dist.destroy_process_group()


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=Config.epochs)
    ap.add_argument("--batch-size", type=int, default=Config.batch_size)
    ap.add_argument("--lr", type=float, default=Config.lr)
    ap.add_argument("--amp", choices=("bf16", "fp16", "none"), default="bf16")
    args = ap.parse_args(argv)
    cfg = Config(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                 amp_dtype=args.amp)
    train(cfg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
