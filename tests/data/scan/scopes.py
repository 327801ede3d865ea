"""Imports inside functions are visible from their line to the end of the body."""


def early():
    # module-level torch is imported below, but runs before this is called
    return torch.zeros(1)


def local_import():
    import torch.nn.functional as LF
    x = LF.softmax(torch.ones(3), dim=0)

    def inner():
        return LF.log_softmax(x, dim=0)  # the enclosing function's import

    return inner()


def other():
    LF = object()
    return LF.softmax(1)  # not torch here: LF is bound only in local_import


class Holder:
    from torch import nn as tnn

    def make(self):
        return self.tnn.Linear(1, 1)


import torch
