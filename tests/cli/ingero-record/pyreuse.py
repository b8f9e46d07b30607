# SPDX-License-Identifier: MIT
# The workload of python-reuse.sh: code objects freed and replaced at the
# same address.  Round k compiles gen<k>.py, whose gen() calls the fake
# CUDA runtime (argv[1]) at line k + 2, calls it once, and frees it; the
# next round's code object takes the freed memory.  Odd rounds keep the
# code object alive for a while after the call (the recorder can read
# it), even rounds free it at once (it may be gone before it is read).
# Prints "k address-of-code" per round.
import ctypes
import os
import sys
import time

lib = ctypes.CDLL(sys.argv[1])
with open("ready.tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename("ready.tmp", "ready")
while not os.path.exists("go"):
    time.sleep(0.01)
g = {"lib": lib}
for k in range(6):
    src = "\n" * k + "def gen():\n    lib.cudaDeviceSynchronize()\n"
    exec(compile(src, "gen%d.py" % k, "exec"), g)
    print(k, hex(id(g["gen"].__code__)), flush=True)
    g["gen"]()
    if k % 2:
        time.sleep(0.5)
    del g["gen"]
    time.sleep(0.02)
