"""Fine-tunes a causal language model with gradient accumulation, a custom
attention kernel switch and checkpoint resumption (corpus for pylex)."""
import json, logging, os, re, sys
from pathlib import Path
from typing import Any, Callable, Iterator

import torch
from torch import nn, Tensor
import torch.nn.functional as F

log = logging.getLogger(__name__)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
_SIZE_RE = re.compile(r"(?P<n>\d+(?:\.\d+)?)(?P<unit>[kMG]?)B?$")
UNITS: dict[str, int] = {'': 1, 'k': 10**3, 'M': 10**6, 'G': 10**9}


def parse_size(text: str) -> int:
    if (m := _SIZE_RE.match(text.strip())) is None:
        raise ValueError(f"bad size {text!r}: expected e.g. '7B' or '350M'")
    return int(float(m["n"]) * UNITS[m["unit"]])


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: Tensor) -> Tensor:
        var = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(var + self.eps)).type_as(x) * self.weight


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int, *, flash: bool = True):
        super().__init__()
        assert dim % heads == 0, f"{dim=} is not a multiple of {heads=}"
        self.heads, self.flash = heads, flash
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        if self.flash and x.is_cuda:
            with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False):
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** .5))
            mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), 1)
            y = att.masked_fill(mask, float("-inf")).softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class Layer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.n1, self.n2 = RMSNorm(dim), RMSNorm(dim)
        self.att = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.att(self.n1(x))
        return x + self.mlp(self.n2(x))


class LM(nn.Module):
    def __init__(self, vocab=32_000, dim=512, heads=8, depth=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([Layer(dim, heads) for _ in range(depth)])
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.emb.weight  # tied

    def forward(self, ids: Tensor, targets: Tensor | None = None):
        x = self.emb(ids)
        for layer in self.layers:
            x = torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)
        logits = self.head(self.norm(x))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-100)


def batches(path: Path, seq: int, bs: int) -> Iterator[tuple[Tensor, Tensor]]:
    data = torch.from_numpy(__import__("numpy").memmap(path, dtype="uint16", mode="r")
                            .astype("int64"))
    while True:
        ix = torch.randint(len(data) - seq - 1, (bs,))
        x = torch.stack([data[i:i + seq] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + seq] for i in ix])
        yield x.pin_memory().to(DEVICE, non_blocking=True), y.to(DEVICE, non_blocking=True)


def resume(model: nn.Module, opt, ckpt_dir: Path) -> int:
    ckpts = sorted(ckpt_dir.glob("step_*.pt"), key=lambda p: int(p.stem.split("_")[1]))
    if not ckpts:
        return 0
    state = torch.load(ckpts[-1], map_location=DEVICE)
    model.load_state_dict(state["model"]); opt.load_state_dict(state["opt"])
    log.info("resumed from %s (step %d)", ckpts[-1], state["step"])
    return state["step"]


def run(cfg: dict[str, Any], on_step: Callable[[int, float], None] = lambda s, l: None):
    torch.manual_seed(cfg.get("seed", 1337))
    model = LM(**cfg["model"]).to(DEVICE)
    if cfg.get("compile", False):
        model = torch.compile(model, mode="max-autotune")
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], fused=DEVICE == "cuda")
    step = resume(model, opt, Path(cfg["out"]))
    accum = cfg.get("accum", 8)
    stream = batches(Path(cfg["data"]), cfg["seq"], cfg["batch"])
    while step < cfg["steps"]:
        for micro in range(accum):
            x, y = next(stream)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                _, loss = model(x, y)
            (loss / accum).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad(set_to_none=True)
        step += 1
        on_step(step, loss.item())
        match step % cfg.get("save_every", 500), cfg.get("eval", None):
            case 0, _:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                            "step": step}, Path(cfg["out"]) / f"step_{step:07d}.pt")
            case _, {"every": int(every)} if step % every == 0:
                log.info(f"""eval at {step}: {
                    torch.cuda.memory_summary(abbreviated=True) if DEVICE == 'cuda' else '-'
                }""")
            case _:
                pass
    return model


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("LOGLEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(message)s")
    config = json.loads(Path(sys.argv[1]).read_text()) if len(sys.argv) > 1 else {
        "model": {"dim": 256, "depth": 4}, "lr": 6e-4, "seq": 256, "batch": 16,
        "steps": 100, "data": "train.bin", "out": "ckpt", "accum": 2,
    }
    run(config, on_step=lambda s, l: print(f"\rstep {s:>5} loss {l:7.4f}", end="",
                                            flush=True))
