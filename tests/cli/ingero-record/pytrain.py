# SPDX-License-Identifier: MIT
# The workload of the python*.sh cases: calls the fake CUDA runtime
# (argv[1]) through ctypes from known lines, each marked "# @NAME", from
# the main thread, a second thread and a forked child.  Writes "ready"
# (its pid) once the library is loaded and waits for "go"; "iters" in
# argv[2] (default 3).  The pauses keep the process alive while the
# recorder reads its code objects, as any real job is.
import ctypes
import os
import sys
import threading
import time

lib = ctypes.CDLL(sys.argv[1])
ITERS = int(sys.argv[2]) if len(sys.argv) > 2 else 3


class Model:
    def forward(self, n):
        p = ctypes.c_void_p()
        lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(n))  # @malloc
        lib.cudaFree(p)  # @free


def step(m, i):
    m.forward(4096 * (i % 4 + 1))  # @step
    lib.cudaDeviceSynchronize()  # @sync


def worker():
    lib.cudaStreamSynchronize(None)  # @worker


def via_c(x):
    return lib.cudaMemset(None, x, 64)  # @viac


def child_step():
    lib.cudaEventSynchronize(None)  # @child


def main():
    with open("ready.tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename("ready.tmp", "ready")
    while not os.path.exists("go"):
        time.sleep(0.01)
    m = Model()
    for i in range(ITERS):
        step(m, i)  # @loop
        if i < 3:
            time.sleep(0.05)
    list(map(via_c, [0]))  # @map
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    pid = os.fork()
    if pid == 0:
        child_step()  # @fork
        time.sleep(0.3)
        os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.1)


main()  # @module
