# SPDX-License-Identifier: MIT
# Source compiled by pyline_gen.py: each construct below makes the CPython
# compilers emit a line-table shape the decoder must handle.
import os


def step(model, batch, lr=0.1):
    total = 0
    for x in batch:                      # loop: backward jumps
        try:
            total += model(x) * lr
        except (ValueError, ZeroDivisionError) as e:   # 3.11+: no-location cleanup
            total -= 1
            del e
        finally:
            lr *= 0.99
    return total


class Trainer:
    def __init__(self, n):
        self.n = [i * i for i in range(n)]   # comprehension: its own code object

    def forward(self, a, b):
        return (a +
                b *
                self.n[0]                     # multi-line expression: negative deltas
                )

    async def fetch(self):
        return await os.fspath(self)


def wide(a):
    return a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a  # noqa: E501  columns past 127
