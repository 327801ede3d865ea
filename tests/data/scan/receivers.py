"""Method calls judged by their receivers, and local names that hide imports
(issue 13, items 9 and 10). Each line's comment says what the scan must say."""
import io
import data
import torch
import torch.nn.functional as F
from PIL import Image
from torch.fx import Tracer


def batchify(data, bsz):
    nbatch = data.size(0) // bsz  # uncertain: a parameter hides `import data`
    data = data.narrow(0, 0, nbatch * bsz)  # uncertain
    return data.view(bsz, -1).t().contiguous()  # all uncertain: what data is stays unknown


def read_words(path):
    words = []
    with open(path) as f:
        for line in f:
            words += line.split() + ["<eos>"]  # not a tensor: a line of a file
            parts = line.strip().split(",")  # not a tensor: a str method's result
    text = io.open(path).read()
    text.split("\n")  # not a tensor: read from a file
    " ".join(words).split()  # not a tensor: a str literal's method
    return [w.split("-") for w in text.split()]  # not a tensor: a word of a str


def images(path):
    img = Image.open(path)
    r, g, b = img.split()  # not a tensor: a PIL image
    return r


class MyTracer(Tracer):
    pass


def trace(root):
    tracer = MyTracer()
    graph = tracer.trace(root)  # not a tensor: a torch.fx tracer
    return graph


def tensors():
    x = torch.randn(4, 6)
    y = x.view(24).split(6)  # view, split certain: from torch calls
    z = F.relu(x).sum(1)  # certain
    w = x[0].index_select(0, torch.tensor([0]))  # certain: an index into a tensor
    lam = lambda data: data.float()  # uncertain: a lambda's parameter
    sq = [data.half() for data in y]  # certain: the elements of a tensor's split
    loss = 0.0
    loss += z.mean()
    return loss.item(), w, lam, sq  # item uncertain: loss was added a tensor


def tokens(self, text, parts):
    merged = self.bpe(text).split(' ')  # not a tensor: split by a str separator
    fields = parts.split(f"{text}", 1)  # not a tensor: an f-string separator
    halves = parts.split(2)  # uncertain: a tensor splits by sizes
    cols = self.pipe().read().split()  # not a tensor: no sizes, a str's split
    pairs = parts.split(sep=",")  # not a tensor: a str's keyword
    return merged, fields, halves, cols, pairs
