"""Writes the torch.save fixtures of tests/unit/test_torchsave.c and the
values they must read back (expected.json). Run with Debian's python3-torch:
/usr/bin/python3 make.py (the files are committed; rerun to regenerate)."""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def tensors():
    g = torch.Generator().manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    return {
        "f32": torch.randn(2, 3, generator=g),
        "f64": torch.tensor([1.0 / 3.0, -2.5e-300], dtype=torch.float64),
        "f16": torch.tensor([1.5, -0.0, 65504.0, 6e-8], dtype=torch.float16),
        "bf16": torch.tensor([1.0, -3.140625, 1e30], dtype=torch.bfloat16),
        "i64": torch.tensor([-1, 2**40, 7]),
        "i32": torch.tensor([[1, -2], [3, 4]], dtype=torch.int32),
        "u8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 4),
        "transposed": torch.arange(12.0).reshape(3, 4).t(),
        "strided": torch.arange(10.0)[1:9:3],
        "param": torch.nn.Parameter(torch.full((2,), 0.5)),
        "state": lin.state_dict(),
        "nested": [torch.tensor([1.0]), (torch.tensor([2, 3]),)],
    }


def flat(obj, prefix, out):
    if isinstance(obj, torch.Tensor):
        t = obj.detach()
        out[prefix or "tensor"] = {
            "dtype": str(t.dtype).replace("torch.", ""),
            "shape": list(t.shape),
            "values": [float(v) for v in t.double().reshape(-1).tolist()],
        }
    elif isinstance(obj, dict):
        for k, v in obj.items():
            flat(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flat(v, f"{prefix}.{i}" if prefix else str(i), out)


def main():
    t = tensors()
    torch.save(t, os.path.join(HERE, "tensors.pt"))
    torch.save(t, os.path.join(HERE, "tensors-p4.pt"), pickle_protocol=4)
    expected = {}
    flat(t, "", expected)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
    with open(os.path.join(HERE, "tensors.pt"), "rb") as f:
        whole = f.read()
    with open(os.path.join(HERE, "truncated.pt"), "wb") as f:
        f.write(whole[: len(whole) - 200])


if __name__ == "__main__":
    main()
