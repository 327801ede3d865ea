#!/usr/bin/python3
"""torch.testing.assert_close on the two files of bench/compare, loaded with
torch.frombuffer over the mapped files (no copy). Prints the time of the
assert_close call alone in ms; the first line of its message goes to
stderr. Usage: /usr/bin/python3 compare_torch.py REF CAND"""
import json
import mmap
import struct
import sys
import time
import warnings

import torch


def load(path):
    f = open(path, "rb")
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (n,) = struct.unpack("<Q", m[:8])
    h = json.loads(m[8:8 + n])["x"]
    with warnings.catch_warnings():  # the buffer is read-only; nothing writes it
        warnings.simplefilter("ignore")
        return torch.frombuffer(m, dtype=torch.float32, offset=8 + n + h["data_offsets"][0],
                                count=h["shape"][0])


def main():
    ref, cand = load(sys.argv[1]), load(sys.argv[2])
    t0 = time.perf_counter()
    try:
        torch.testing.assert_close(cand, ref)
    except AssertionError as e:
        print(str(e).splitlines()[1], file=sys.stderr)
    print(f"{(time.perf_counter() - t0) * 1000:.1f}")


if __name__ == "__main__":
    main()
