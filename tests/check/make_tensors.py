#!/usr/bin/python3
"""Writes pairs of safetensors files (by hand: struct + json, no safetensors
package) and what torch.testing.assert_close says about each pair.

Usage: /usr/bin/python3 make_tensors.py OUTDIR

For each case C: OUTDIR/C/ref.safetensors and OUTDIR/C/cand.safetensors,
each holding one tensor named "t"; OUTDIR/expected.json maps C to
{args, passed, mismatched, numel, max_abs, max_abs_index, max_rel,
max_rel_index, rtol, atol}. The greatest differences are recomputed with
torch exactly as assert_close's make_tensor_mismatch_msg does (over the
mismatched elements), and the mismatch count is checked against the count
in assert_close's own AssertionError message. For a passing pair, max_abs
is the greatest difference over all elements (equal values, Inf included,
count 0), which is what mtrial reports then. Needs torch (Debian's
python3-torch); numbers that JSON cannot hold are "inf", "-inf", "nan".
"""
import json
import math
import os
import re
import struct
import sys

import torch

CODES = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16",
    torch.int32: "I32", torch.int64: "I64", torch.float16: "F16",
    torch.bfloat16: "BF16", torch.float32: "F32", torch.float64: "F64",
}


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    if t.numel() == 0:
        return b""
    return bytes(t.reshape(-1).view(torch.uint8).numpy())


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: tensor}. The header is padded to 8 bytes as the
    safetensors library does."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        b = tensor_bytes(t)
        header[name] = {"dtype": CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def jnum(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def unravel(flat, shape):
    idx = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        idx.append(mod)
    return idx[::-1]


def expected(ref, cand, equal_nan):
    """What assert_close(cand, ref) decides, and its greatest differences."""
    kw = dict(equal_nan=equal_nan, check_dtype=False)
    try:
        torch.testing.assert_close(cand, ref, **kw)
        passed, msg = True, ""
    except AssertionError as e:
        passed, msg = False, str(e)
    rtol, atol = torch.testing._comparison.default_tolerances(cand, ref)
    # as _compare_regular_values_close: promoted, then isclose in float64/int64
    dt = torch.promote_types(cand.dtype, ref.dtype)
    wide = torch.float64 if dt.is_floating_point else torch.int64
    a, b = cand.to(dt).to(wide), ref.to(dt).to(wide)
    matches = torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    mism = int((~matches).sum())
    out = {"passed": passed, "mismatched": mism, "numel": ref.numel(), "rtol": rtol, "atol": atol}
    if not passed and ref.dim() > 0:
        m = re.search(r"Mismatched elements: (\d+) / (\d+)", msg)
        assert m and int(m.group(1)) == mism, (msg, mism)
    assert passed == (mism == 0)
    if ref.numel() == 0:
        return out
    af, bf, mf = a.flatten().double(), b.flatten().double(), matches.flatten()
    abs_diff = torch.abs(af - bf)
    if mism:  # make_tensor_mismatch_msg
        abs_diff[mf] = 0
        mabs, iabs = torch.max(abs_diff, 0)
        rel = abs_diff / torch.abs(bf)
        rel[mf] = 0
        mrel, irel = torch.max(rel, 0)
    else:  # over all elements; equal ones (Inf, and NaN with equal_nan) differ by 0
        same = af == bf
        if equal_nan:
            same |= torch.isnan(af) & torch.isnan(bf)
        abs_diff[same] = 0
        mabs, iabs = torch.max(abs_diff, 0)
        rel = abs_diff / torch.abs(bf)
        rel[abs_diff == 0] = 0
        mrel, irel = torch.max(rel, 0)
    out.update(max_abs=jnum(mabs), max_abs_index=unravel(int(iabs), list(ref.shape)),
               max_rel=jnum(mrel), max_rel_index=unravel(int(irel), list(ref.shape)))
    return out


def cases():
    g = torch.Generator().manual_seed(1234)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)

    def bump(t, idx, by):
        t = t.clone()
        t.view(-1)[idx] += by
        return t

    nan, inf = float("nan"), float("inf")
    r = randn(1000)
    yield "f32_equal", r, r.clone(), []
    yield "f32_within", r, r * (1 + 1e-7), []
    yield "f32_three_off", r, bump(bump(bump(r, 5, 0.25), 500, -0.1), 999, 1e-3), []
    r2 = randn(10, 100)
    yield "f32_2d", r2, bump(bump(r2, 102, 0.25), 737, 0.5), []
    r3 = randn(4, 5, 6)
    yield "f32_3d_rel", r3, r3 * 1.001, []
    for dt, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16"), (torch.float64, "f64")):
        x = randn(257, dtype=dt)
        yield name + "_equal", x, x.clone(), []
        yield name + "_off", x, bump(x, 100, 0.5), []
        yield name + "_rel", x, (x.double() * 1.01).to(dt), []
    yield "f16_subnormal", torch.tensor([6e-8, 1e-6, 0.0], dtype=torch.float16), \
        torch.tensor([0.0, 2e-6, 6e-8], dtype=torch.float16), []
    for dt, name in ((torch.int32, "i32"), (torch.int64, "i64"), (torch.uint8, "u8"),
                     (torch.int8, "i8"), (torch.int16, "i16")):
        x = torch.randint(0, 100, (50,), generator=g).to(dt)
        yield name + "_equal", x, x.clone(), []
        y = x.clone()
        y[7] += 3
        y[8] -= 1
        yield name + "_off", x, y, []
    b = torch.randint(0, 2, (64,), generator=g).bool()
    yield "bool_equal", b, b.clone(), []
    nb = b.clone()
    nb[3] = ~nb[3]
    yield "bool_off", b, nb, []
    yield "i64_big", torch.tensor([2**40, -2**40, 5]), torch.tensor([2**40, -2**40 + 1, 5]), []
    yield "scalar_equal", torch.tensor(1.5), torch.tensor(1.5), []
    yield "scalar_off", torch.tensor(1.5), torch.tensor(1.75), []
    yield "empty", torch.zeros(0), torch.zeros(0), []
    yield "empty_2d", torch.zeros(3, 0), torch.zeros(3, 0), []
    yield "nan_both", torch.tensor([1.0, nan, 2.0]), torch.tensor([1.0, nan, 2.0]), []
    yield "nan_both_equal_nan", torch.tensor([1.0, nan, 2.0]), \
        torch.tensor([1.0, nan, 2.0]), ["--equal-nan"]
    yield "nan_cand", torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, nan, 3.0, nan]), []
    yield "nan_ref", torch.tensor([1.0, nan, 3.0]), torch.tensor([1.0, 2.0, 3.5]), []
    yield "inf_equal", torch.tensor([inf, -inf, 1.0]), torch.tensor([inf, -inf, 1.0]), []
    yield "inf_sign", torch.tensor([inf, 1.0]), torch.tensor([-inf, 1.0]), []
    yield "inf_finite", torch.tensor([inf, 1.0, 2.0]), torch.tensor([1e30, 1.0, 2.0]), []
    yield "zeros_equal", torch.zeros(100), torch.zeros(100), []
    yield "zeros_off", torch.zeros(100), bump(torch.zeros(100), 42, 1e-3), []
    yield "zeros_within", torch.zeros(100), bump(torch.zeros(100), 42, 1e-6), []
    yield "ties", torch.zeros(10), torch.tensor([0, 1, 0, 1, 0, 0, 1, 0, 0, 0.0]), []
    big = randn(1 << 20)
    far = bump(bump(big, 70000, 0.01), (1 << 20) - 3, 0.02)
    yield "large", big, far, []
    yield "large_within", big, big * (1 + 1e-7), []
    yield "mixed_f32_bf16", r, r.to(torch.bfloat16), []
    yield "mixed_f16_f32", r.to(torch.float16), r.to(torch.float16).float() + 1e-4, []
    yield "mixed_i32_i64", torch.arange(10, dtype=torch.int32), torch.arange(10), []


def raw_safetensors(path, header, data=b"", length=None):
    """A file with any header at all, for the bad-file cases."""
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h) if length is None else length) + h + data)


def bad_files(out):
    """Files mtrial must refuse, each with a fragment its message must hold."""
    d = os.path.join(out, "bad")
    os.makedirs(d, exist_ok=True)
    f32 = lambda shape, offs: {"dtype": "F32", "shape": shape, "data_offsets": offs}
    want = {}

    def bad(name, fragment, header=None, data=b"", length=None, content=None):
        path = os.path.join(d, name)
        if content is not None:
            with open(path, "wb") as f:
                f.write(content)
        else:
            raw_safetensors(path, header, data, length)
        want[name] = fragment

    bad("empty.safetensors", "empty file", content=b"")
    bad("short.safetensors", "not a safetensors file: 5 bytes", content=b"\x10\0\0\0\0")
    bad("text.safetensors", "not a safetensors file", content=b"hello, world\nnot tensors\n")
    bad("header_len.safetensors", "header length 1000000 runs past the end",
        header={"w": f32([1], [0, 4])}, data=b"\0" * 4, length=1000000)
    bad("header_len_short.safetensors", "invalid JSON", header={"w": f32([1], [0, 4])},
        data=b"\0" * 4, length=10)
    bad("bad_json.safetensors", "invalid JSON", header=b"{\"w\": [1, 2", data=b"")
    bad("not_object.safetensors", "not a safetensors file", header=b"[1, 2]")
    bad("offsets_past.safetensors", "tensor 'w': data_offsets [0, 400] are not within the data "
        "section (16 bytes)", header={"w": f32([100], [0, 400])}, data=b"\0" * 16)
    bad("offsets_order.safetensors", "tensor 'w': data_offsets [8, 4]",
        header={"w": f32([1], [8, 4])}, data=b"\0" * 16)
    bad("size_lie.safetensors", "tensor 'w': data_offsets [0, 16] hold 16 bytes, but 3 elements "
        "of F32 need 12", header={"w": f32([3], [0, 16])}, data=b"\0" * 16)
    bad("overlap.safetensors", "data_offsets overlap those of tensor 'a'",
        header={"a": f32([2], [0, 8]), "b": f32([2], [4, 12])}, data=b"\0" * 12)
    bad("f8.safetensors", "tensor 'w': unsupported dtype F8_E4M3",
        header={"w": {"dtype": "F8_E4M3", "shape": [4], "data_offsets": [0, 4]}},
        data=b"\0" * 4)
    bad("neg_dim.safetensors", "tensor 'w': shape[1] is not a non-negative integer",
        header={"w": f32([2, -1], [0, 0])})
    bad("no_dtype.safetensors", "tensor 'w': dtype is missing",
        header={"w": {"shape": [1], "data_offsets": [0, 4]}}, data=b"\0" * 4)
    bad("offsets_shape.safetensors", "tensor 'w': data_offsets is not a pair",
        header={"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}}, data=b"\0" * 4)
    bad("metadata.safetensors", "__metadata__ is not an object",
        header={"__metadata__": 3, "w": f32([1], [0, 4])}, data=b"\0" * 4)
    bad("duplicate.safetensors", "duplicate", header=b'{"w": {"dtype": "F32", "shape": [1], '
        b'"data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}',
        data=b"\0" * 4)
    good = os.path.join(d, "good.tmp")
    write_safetensors(good, {"w": torch.ones(64)})
    with open(good, "rb") as f:
        whole = f.read()
    os.unlink(good)
    bad("truncated.safetensors", "tensor 'w': data_offsets [0, 256] are not within the data "
        "section", content=whole[:len(whole) - 100])
    bad("zip.pt", "damaged zip", content=b"PK\x03\x04" + b"\0" * 60)
    torch.save({"w": torch.ones(3)}, os.path.join(d, "legacy.pt"),
               _use_new_zipfile_serialization=False)
    want["legacy.pt"] = "legacy format"
    with open(os.path.join(out, "bad.json"), "w") as f:
        json.dump(want, f, indent=1, sort_keys=True)


def directories(out):
    """REF, CAND and REF2 directories matched by name across files."""
    g = torch.Generator().manual_seed(99)
    w, b = torch.randn(4, 8, generator=g), torch.randn(8, generator=g)
    q, s = torch.randn(16, generator=g), torch.randn(2, 3, generator=g)
    for sub in ("ref", "cand", "ref2", "dup"):
        os.makedirs(os.path.join(out, "dirs", sub), exist_ok=True)
    p = lambda sub, f: os.path.join(out, "dirs", sub, f)
    w_off = w.clone()
    w_off[1, 2] += 1e-3
    w_noise = w.clone()
    w_noise[3, 3] += 1e-4
    write_safetensors(p("ref", "part1.safetensors"), {"layer.0.w": w, "layer.0.b": b})
    write_safetensors(p("ref", "part2.safetensors"),
                      {"attn.q": q, "only_ref": torch.ones(2), "shape_mm": s,
                       "dtype_mm": torch.ones(3)})
    write_safetensors(p("ref", "notes.txt"), {"ignored": torch.ones(1)})
    write_safetensors(p("cand", "all.safetensors"),
                      {"layer.0.w": w_off, "layer.0.b": b.clone(), "attn.q": q * (1 + 1e-4),
                       "only_cand": torch.ones(1), "shape_mm": s.t().contiguous(),
                       "dtype_mm": torch.ones(3, dtype=torch.int32)})
    write_safetensors(p("ref2", "all.safetensors"),
                      {"layer.0.w": w_noise, "layer.0.b": b.clone(), "attn.q": q * (1 + 1e-5)})
    # the same tensors as a torch.save'd state_dict
    torch.save({"layer.0.w": w, "layer.0.b": b, "attn.q": q, "only_ref": torch.ones(2),
                "shape_mm": s, "dtype_mm": torch.ones(3)}, os.path.join(out, "dirs", "ref.pt"))
    write_safetensors(p("dup", "a.safetensors"), {"x": torch.ones(1)})
    write_safetensors(p("dup", "b.safetensors"), {"x": torch.ones(1)})


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    bad_files(out)
    directories(out)
    exp = {}
    for name, ref, cand, args in cases():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        write_safetensors(os.path.join(d, "ref.safetensors"), {"t": ref})
        write_safetensors(os.path.join(d, "cand.safetensors"), {"t": cand},
                          metadata={"format": "pt"})
        e = expected(ref, cand, "--equal-nan" in args)
        e["args"] = args
        exp[name] = e
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
