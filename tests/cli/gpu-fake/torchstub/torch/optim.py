# SPDX-License-Identifier: MIT
class Adam:
    def __init__(self, p, lr): pass
    def zero_grad(self, set_to_none=False): pass
    def step(self): pass
