# SPDX-License-Identifier: MIT
# A training loop for the symbolize tests (pyframes.py drives it): step()
# makes the "CUDA call" at the line marked @step_call; `launch` stands for
# the ctypes call into libcudart where a uprobe would fire.


def step(model, batch, launch):
    total = 0
    for x in batch:
        total += model.weight * x
    launch("cudaLaunchKernel")  # @step_call
    return total


def other(launch):
    launch("cudaMemcpy")  # @other_call


class Trainer:
    def __init__(self, launch):
        self.launch = launch
        self.weight = 3

    def run(self, epochs=1):
        for _ in range(epochs):
            step(self, [1, 2, 3], self.launch)  # @run_call
        other(self.launch)  # @run_other
