# SPDX-License-Identifier: MIT
from .. import T
from . import functional  # noqa
class Module:
    def __call__(self, *a): return self.forward(*a)
    def to(self, d): return self
    def parameters(self): return []
    def forward(self, x): return T()
class Sequential(Module):
    def __init__(self, *m): self.m = m
    def forward(self, x):
        for m in self.m: x = m(x)
        return x
class _L(Module):
    def __init__(self, *a, **k): pass
Conv2d = ReLU = Linear = GELU = TransformerEncoderLayer = _L
