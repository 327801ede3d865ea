"""Fine-tune the GPT-small decoder on a JSONL corpus (or synthetic data).

    python train.py --data data/tickets.jsonl --steps 2000
    python train.py --device cpu --steps 3      # smoke test, synthetic data
"""
import argparse
import math
import os
import time

import torch
import yaml

from data import make_loaders
from model import GPT, GPTConfig

try:
    from tqdm import tqdm
except ImportError:  # tqdm is cosmetic
    def tqdm(it, **_):
        return it

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config", default=os.path.join(HERE, "configs", "small.yaml"))
    known, _ = pre.parse_known_args()
    with open(known.config) as f:
        cfg = yaml.safe_load(f)
    p = argparse.ArgumentParser(parents=[pre], description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default="synthetic:512", help="JSONL file or synthetic:N")
    p.add_argument("--device", default="cuda")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--max-length", type=int, default=1024)
    p.add_argument("--pad-to-multiple-of", type=int, default=8)
    p.add_argument("--eval-every", type=int, default=200)
    p.add_argument("--eval-batches", type=int, default=50)
    p.add_argument("--optim", choices=["adamw", "adamw8bit"], default="adamw")
    p.add_argument("--compile", action="store_true", help="torch.compile the model")
    p.add_argument("--no-amp", action="store_true")
    p.add_argument("--num-workers", type=int, default=2)
    p.add_argument("--out", default="checkpoints")
    p.add_argument("--resume", default=None)
    p.add_argument("--seed", type=int, default=1234)
    p.set_defaults(**{k.replace("-", "_"): v for k, v in cfg.get("train", {}).items()})
    args = p.parse_args()
    args.model_cfg = cfg.get("model", {})
    return args


def lr_lambda(warmup, total, min_ratio=0.1):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))
    return f


def build_optimizer(model, args):
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": args.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    if args.optim == "adamw8bit":
        import bitsandbytes as bnb
        return bnb.optim.AdamW8bit(groups, lr=args.lr, betas=(0.9, 0.95))
    return torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.95), eps=1e-8)


@torch.no_grad()
def evaluate(model, loader, device, use_amp, max_batches):
    model.eval()
    total_loss, n_tokens = 0.0, 0
    for i, batch in enumerate(tqdm(loader, desc="eval", leave=False)):
        if i >= max_batches:
            break
        input_ids = batch["input_ids"].to(device, non_blocking=True)
        labels = batch["labels"].to(device, non_blocking=True)
        with torch.cuda.amp.autocast(enabled=use_amp, dtype=torch.float16):
            _, loss = model(input_ids, labels)
        n = int((labels[:, 1:] != -100).sum())
        # accumulate in float64 so thousands of batches do not lose precision
        total_loss = total_loss + loss.double() * n
        n_tokens += n
    model.train()
    return float(total_loss / max(n_tokens, 1))


def save_checkpoint(path, model, optimizer, scaler, step, args):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "step": step,
                "model_cfg": args.model_cfg}, path)
    print(f"saved checkpoint {path}")


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.cuda.manual_seed_all(args.seed)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    device = torch.device(args.device)
    use_amp = device.type == "cuda" and not args.no_amp

    cfg = GPTConfig(**args.model_cfg)
    train_loader, eval_loader = make_loaders(
        args.data, args.batch_size, min(args.max_length, cfg.max_seq_len),
        pad_to_multiple_of=args.pad_to_multiple_of, num_workers=args.num_workers,
        seed=args.seed)
    model = GPT(cfg).to(device)
    print(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters")
    optimizer = build_optimizer(model, args)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(args.warmup, args.steps))
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    start = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cuda")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["step"]
        for _ in range(start):
            scheduler.step()
    raw_model = model
    if args.compile:
        model = torch.compile(model, mode="max-autotune")

    model.train()
    data_iter = iter(train_loader)
    for step in range(start + 1, args.steps + 1):
        t0 = time.time()
        try:
            batch = next(data_iter)
        except StopIteration:  # next epoch
            data_iter = iter(train_loader)
            batch = next(data_iter)
        input_ids = batch["input_ids"].to(device, non_blocking=True)
        labels = batch["labels"].to(device, non_blocking=True)
        with torch.cuda.amp.autocast(enabled=use_amp, dtype=torch.float16):
            _, loss = model(input_ids, labels)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        dt = time.time() - t0
        tokens = int((labels != -100).sum())
        print(f"step {step:5d}/{args.steps} | loss {loss.item():.4f} | "
              f"lr {scheduler.get_last_lr()[0]:.2e} | grad_norm {float(grad_norm):.3f} | "
              f"seq {input_ids.shape[1]} | {tokens / dt:,.0f} tok/s | {dt * 1000:.0f} ms",
              flush=True)
        # the same step for `mtrial run` (its line protocol): tokens = positions
        # with a loss target, padded = every position of the padded batch
        print(f"mtrial:step={step} loss={loss.item():.6f} "
              f"tokens={int((labels[:, 1:] != -100).sum())} padded={labels.numel()}", flush=True)
        if step % args.eval_every == 0 or step == args.steps:
            eval_loss = evaluate(model, eval_loader, device, use_amp, args.eval_batches)
            print(f"mtrial:eval step={step} eval_loss={eval_loss:.6f}", flush=True)
            print(f"eval step {step} | eval_loss {eval_loss:.4f} | "
                  f"ppl {math.exp(min(eval_loss, 20)):.2f}", flush=True)
            save_checkpoint(os.path.join(args.out, f"step{step:06d}.pt"),
                            raw_model, optimizer, scaler, step, args)
    if device.type == "cuda":
        print(f"peak memory {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")


if __name__ == "__main__":
    main()
