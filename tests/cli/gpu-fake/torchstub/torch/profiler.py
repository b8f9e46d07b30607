# SPDX-License-Identifier: MIT
import contextlib, types
ProfilerActivity = types.SimpleNamespace(CPU=1, CUDA=2)
class profile:
    def __init__(self, activities): pass
    def __enter__(self):
        import torch
        self.n0 = torch.launches[0]
        return self
    def __exit__(self, *a):
        import torch
        self.n = torch.launches[0] - self.n0
        return False
    def key_averages(self):
        return [types.SimpleNamespace(key="cudaLaunchKernel", count=self.n),
                types.SimpleNamespace(key="cudaDeviceSynchronize", count=2),
                types.SimpleNamespace(key="aten::mm", count=4)]
