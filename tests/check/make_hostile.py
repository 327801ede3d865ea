"""Writes torch.save files that a hostile or careless author could hand over,
into DIR: none of them is ever loaded here (torch.load would run code).

  code.pt      a tensor beside a REDUCE of os.system (which would touch
               DIR/ran) and a reference to os.getcwd that is not called
  memo.pt      a 60-byte pickle whose LONG_BINPUT asks for memo slot 2**26
  expand.pt    a float storage of 4 bytes viewed as 2**28 floats by a
               stride of 0 (1 GiB if gathered)
  honest.pt    torch.zeros(3).expand(1000, 3) as torch.save writes it: a
               stride-0 view that must still be read

Usage: make_hostile.py DIR (the python3 that has torch, for code.pt)."""
import os
import sys
import zipfile

import torch

d = sys.argv[1]
os.makedirs(d, exist_ok=True)


class Runs:
    """Pickled as a call of os.system: torch.load would run the command."""

    def __reduce__(self):
        return (os.system, ("touch " + os.path.join(d, "ran"),))


torch.save({"w": torch.ones(3), "hook": Runs(), "where": os.getcwd},
           os.path.join(d, "code.pt"))
torch.save({"w": torch.ones(3)}, os.path.join(d, "plain.pt"))
torch.save({"e": torch.zeros(3).expand(1000, 3)}, os.path.join(d, "honest.pt"))


def archive(path, pkl, storages):
    """A torch.save zip by hand: archive/data.pkl and archive/data/N, stored."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        for key, data in storages.items():
            z.writestr("archive/data/" + key, data)


def s(text):  # BINUNICODE
    b = text.encode()
    return b"X" + len(b).to_bytes(4, "little") + b


# EMPTY_LIST, LONG_BINPUT 2**26, STOP
archive(os.path.join(d, "memo.pt"), b"\x80\x02]r" + (1 << 26).to_bytes(4, "little") + b".",
        {})

# _rebuild_tensor_v2(storage('0', FloatStorage, 1 element), 0, (2**28,), (0,), False, {})
pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n("
       + b"(" + s("storage") + b"ctorch\nFloatStorage\n" + s("0") + s("cpu") + b"K\x01tQ"
       + b"K\x00" + b"\x8a\x04" + (1 << 28).to_bytes(4, "little") + b"\x85"
       + b"K\x00\x85" + b"\x89}tR.")
archive(os.path.join(d, "expand.pt"), pkl, {"0": b"\0\0\0\0"})
