# SPDX-License-Identifier: MIT
# A stand-in for torch (tests/cli/gpu-fake/torch-stub.sh): just enough of
# its API for bench/gpu/train.py's control flow, every tensor operation one
# cudaLaunchKernel of the fake runtime (ctypes, $STUB_CUDART), synchronize a
# cudaDeviceSynchronize, a graph replay a cudaGraphLaunch; the profiler
# counts the launches made inside it.  No GPU, no PyTorch.
import contextlib, types
__version__ = "0.0-stub"
version = types.SimpleNamespace(cuda="12.x-stub")
import ctypes, os
_rt = ctypes.CDLL(os.environ["STUB_CUDART"])
class _dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]
_rt.cudaLaunchKernel.argtypes = [ctypes.c_void_p, _dim3, _dim3, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
launches = [0]
def _launch():
    launches[0] += 1
    _rt.cudaLaunchKernel(0x1234, _dim3(1, 1, 1), _dim3(32, 1, 1), None, 0, None)
class T:
    shape = (64, 128)
    def __init__(self): _launch()
    def __getattr__(self, n): return lambda *a, **k: T()
    def __mul__(self, o): return T()
    __add__ = __sub__ = __rmul__ = __radd__ = __mul__
def _t(*a, **k): return T()
randn = randint = empty = zeros = mm = softmax = _t
def manual_seed(s): pass
def device(s): return s
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=True))
@contextlib.contextmanager
def no_grad(): yield
class _Graph:
    replays = 0
    def replay(self): _rt.cudaGraphLaunch(None, None)
class _Stream:
    def wait_stream(self, s): pass
@contextlib.contextmanager
def _ctx(*a): yield
cuda = types.SimpleNamespace(is_available=lambda: True, synchronize=lambda: _rt.cudaDeviceSynchronize(),
    Stream=_Stream, current_stream=lambda: _Stream(), stream=_ctx, CUDAGraph=_Graph, graph=_ctx,
    get_device_name=lambda i: "stub GPU")
from . import nn, optim, profiler  # noqa
