"""Data pipeline: a byte-level tokenizer, a JSONL/synthetic dataset and a
collate function that pads each batch to its longest sequence."""
import json
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

PAD_ID, BOS_ID, EOS_ID = 0, 1, 2
BYTE_OFFSET = 3  # token = byte + 3


def encode(text, max_length=None):
    ids = [BOS_ID] + [b + BYTE_OFFSET for b in text.encode("utf-8")] + [EOS_ID]
    return ids[:max_length] if max_length else ids


class TextDataset(Dataset):
    """One JSON object per line with a "text" field, or `synthetic:N` for N
    random samples of varying length (smoke tests, no data needed)."""

    def __init__(self, source, max_length=1024, seed=1234):
        self.max_length = max_length
        if source.startswith("synthetic"):
            n = int(source.split(":")[1]) if ":" in source else 256
            rng = np.random.default_rng(seed)
            self.samples = []
            for _ in range(n):
                # a repeated random motif: learnable, so the loss goes down
                motif = rng.integers(BYTE_OFFSET, 259, size=int(rng.integers(4, 12)))
                length = int(rng.integers(16, max_length))
                reps = np.tile(motif, length // len(motif) + 1)[:length]
                self.samples.append([BOS_ID] + reps.tolist()[: max_length - 2] + [EOS_ID])
        else:
            with open(source, encoding="utf-8") as f:
                self.samples = [encode(json.loads(line)["text"], max_length)
                                for line in f if line.strip()]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        return torch.tensor(self.samples[idx], dtype=torch.long)


class PadCollator:
    """Pads a list of 1-D token tensors to the longest one in the batch,
    rounded up to `pad_to_multiple_of`, truncated to `max_length`."""

    def __init__(self, pad_id=PAD_ID, pad_to_multiple_of=None, max_length=None):
        self.pad_id = pad_id
        self.pad_to_multiple_of = pad_to_multiple_of
        self.max_length = max_length

    def __call__(self, batch):
        longest = max(len(x) for x in batch)
        if self.pad_to_multiple_of:
            m = self.pad_to_multiple_of
            longest = (longest + m - 1) // m * m
        if self.max_length:
            longest = min(longest, self.max_length)
        input_ids = torch.full((len(batch), longest), self.pad_id, dtype=torch.long)
        labels = torch.full((len(batch), longest), -100, dtype=torch.long)
        for i, x in enumerate(batch):
            x = x[:longest]
            input_ids[i, : len(x)] = x
            labels[i, : len(x)] = x
        return {"input_ids": input_ids, "labels": labels}


def make_loaders(source, batch_size, max_length, pad_to_multiple_of=8,
                 eval_fraction=0.05, num_workers=2, seed=1234):
    ds = TextDataset(source, max_length=max_length, seed=seed)
    idx = list(range(len(ds)))
    random.Random(seed).shuffle(idx)
    n_eval = max(1, int(len(idx) * eval_fraction))
    train_ds = torch.utils.data.Subset(ds, idx[n_eval:])
    eval_ds = torch.utils.data.Subset(ds, idx[:n_eval])
    collate = PadCollator(pad_to_multiple_of=pad_to_multiple_of, max_length=max_length)
    common = dict(collate_fn=collate, num_workers=num_workers,
                  pin_memory=torch.cuda.is_available())
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True,
                       generator=torch.Generator().manual_seed(seed), **common)
    evaluate = DataLoader(eval_ds, batch_size=batch_size, shuffle=False, **common)
    return train, evaluate
