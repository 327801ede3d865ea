# mtrial scan's false positives on names that are not settings: a device
# name in a collection of names or in a Literal type hard-codes no device,
# while the same name used as a device still does.
. "$MT_SOURCE_DIR/tests/lib.sh"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R=$T_TMP/repo
new_repo "$R"
cat >"$R/dev.py" <<'PY'
from typing import Literal, Optional
import torch

Accel = Literal["cpu", "cuda", "neuron"]
SUPPORTED = ("cpu", "cuda")
KNOWN = {"cuda", "mps", "xla"}
ORDER = [
    "cuda",
    "mps",
]
MEMORY = {"cuda": 80, "cpu": 0}
def pick(kind: Optional[Literal["cuda"]] = None, stats=None):
    if kind in ["cuda", "mps"]:
        return stats["cuda"]
    return None
def main(parser):
    parser.add_argument("--device", choices=["cpu", "cuda"])
    device = "cuda"
    other = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    spec = {"device": "cuda"}
    both = ("cuda", torch.float16)
    alone = ("cuda")
    return device, other, spec, both, alone
def run(device: Literal["cpu", "cuda"] = "cuda"):
    return device
PY
git -C "$R" add -A && git -C "$R" commit -qm devices

run_mt 0 scan --repo "$R" --json --no-cache
lines() { json "sorted({f['line'] for f in j['findings'] if f['file']=='dev.py' and f['rule']=='$1'})"; }
# lines 4-14 and 17 name devices among others, or as types: no finding
eq "$(lines cuda-device-string)" "[18, 19, 20, 21, 22, 24]" \
	"a device string is a finding where it is a value (assigned, an argument, a dict's value, in a mixed tuple, a default), not in a collection of names, a key or a Literal"
eq "$(json "[f['col'] for f in j['findings'] if f['file']=='dev.py' and f['line']==24]")" "[41]" \
	"a Literal's names are no finding, the default beside it is"

# a pathlib path's methods are not tensor ops, however the path was made;
# a tensor's of the same name still is
cat >"$R/paths.py" <<'PY'
import os
import pathlib
from pathlib import Path
import torch

ROOT = Path(__file__).parent.absolute()
here = pathlib.Path.cwd().absolute()
joined = (ROOT / "data" / "x").absolute()
deep = Path(os.getcwd()).resolve().absolute()
def f(path: Path, q: pathlib.Path):
    return path.absolute(), q.parent.absolute()
t = torch.randn(3).absolute()
PY
git -C "$R" add -A && git -C "$R" commit -qm paths
run_mt 0 scan --repo "$R" --json --no-cache
eq "$(json "[m['line'] for m in j['methods'] if m['file']=='paths.py' and m['name']=='absolute']")" "[12]" \
	"absolute() counted as aten::absolute only on the tensor"
eq "$(json "sorted({m['receiver'] for m in j['not_tensor'] if m['file']=='paths.py'})")" "['a filesystem path (pathlib)']" \
	"the paths' calls are said to be on a path"
finish
