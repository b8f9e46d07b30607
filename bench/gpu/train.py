#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/gpu/train.py: the PyTorch workload of bench/gpu/run.

A small model trained on synthetic data: a CNN stem (cuDNN convolutions), a
transformer encoder layer over its 8x8 feature map (attention, layer norm),
an MLP head; cross-entropy, Adam.  Every step also replays one CUDA graph
(the head's evaluation forward, captured once after warm-up: cudaGraphLaunch)
and runs cuBLAS-heavy square matmuls.  Steps end with torch.cuda.synchronize()
so that a step's time is its GPU time too.

Modes (one per run; bench/gpu/run starts each under ingero-record or not):
  --steps N --times FILE        warm up, then time N steps: {"step_ms": [...]}
  --profile-steps K --count-out FILE
                                warm up, then K steps under torch.profiler,
                                delimited by CLOCK_MONOTONIC times taken after
                                a synchronize (the recorder's clock), and a
                                phase of PyTorch's own kernels only (no cuBLAS
                                or cuDNN, whose statically linked runtimes do
                                not call libcudart.so), each with the
                                profiler's count of every CUDA API name
  --seconds S --pin CPU --ready-file FILE
                                the staged incident: the process (and every
                                thread it starts) on one CPU, training for S
                                seconds; FILE gets "PID CPU" once warm

Only python3 and torch are needed.
"""
import argparse
import json
import os
import sys
import time


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--times", help="write the timed steps' milliseconds here (JSON)")
    ap.add_argument("--profile-steps", type=int, default=0)
    ap.add_argument("--count-out", help="the --profile-steps counts (JSON)")
    ap.add_argument("--seconds", type=float, default=0.0)
    ap.add_argument("--pin", type=int, default=-1, help="run on this CPU only")
    ap.add_argument("--ready-file")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--matmul", type=int, default=2048, help="square matmul size")
    ap.add_argument("--matmuls", type=int, default=4, help="matmuls per step")
    return ap.parse_args()


def mono_ns():
    # CLOCK_MONOTONIC: the clock of the recorder's ts_ns
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def main():
    a = parse()
    if a.pin >= 0:
        # before torch starts any thread: they all inherit this CPU
        os.sched_setaffinity(0, {a.pin})
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("train.py: torch.cuda.is_available() is False", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    width, hidden, classes = 128, 2048, 10

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
                nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(64, width, 3, stride=2, padding=1), nn.ReLU())
            self.encoder = nn.TransformerEncoderLayer(
                width, nhead=4, dim_feedforward=4 * width, dropout=0.0, batch_first=True)
            self.head = nn.Sequential(
                nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                nn.Linear(hidden, classes))

        def features(self, x):
            x = self.stem(x)                    # B, width, 8, 8
            x = x.flatten(2).transpose(1, 2)    # B, 64 tokens, width
            return self.encoder(x).mean(1)

        def forward(self, x):
            return self.head(self.features(x))

    model = Net().to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, 3, 32, 32, device=dev)
    y = torch.randint(0, classes, (a.batch,), device=dev)
    ma = torch.randn(a.matmul, a.matmul, device=dev)
    mb = torch.randn(a.matmul, a.matmul, device=dev)
    mc = torch.empty(a.matmul, a.matmul, device=dev)
    static_feat = torch.zeros(a.batch, width, device=dev)
    graph = None
    static_out = None

    def train_step():
        opt.zero_grad(set_to_none=True)
        feat = model.features(x)
        loss = F.cross_entropy(model.head(feat), y)
        loss.backward()
        opt.step()
        for _ in range(a.matmuls):
            torch.mm(ma, mb, out=mc)
        if graph is not None:
            static_feat.copy_(feat.detach())
            graph.replay()

    def capture():
        # the head's evaluation forward as one CUDA graph (warm-up on a
        # side stream first, as torch.cuda.graph requires)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.no_grad():
            for _ in range(3):
                model.head(static_feat)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(g):
            out = model.head(static_feat)
        return g, out

    for i in range(a.warmup):
        train_step()
        if i == a.warmup // 2:
            graph, static_out = capture()
    if graph is None:
        graph, static_out = capture()
    torch.cuda.synchronize()

    if a.profile_steps:
        from torch.profiler import ProfilerActivity, profile

        def native():
            # PyTorch's own kernels only: elementwise, reductions, softmax,
            # layer norm (launched through libcudart.so by libtorch_cuda)
            t = x.flatten(1)
            for _ in range(4):
                t = torch.softmax(F.layer_norm(t * 1.5 + 0.25, t.shape[1:]), dim=1)
                t = t - t.mean(1, keepdim=True)

        def counted(fn, n):
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                torch.cuda.synchronize()
                t0 = mono_ns()
                for _ in range(n):
                    fn()
                torch.cuda.synchronize()
                t1 = mono_ns()
            counts = {}
            for e in prof.key_averages():
                if e.key.startswith("cu") and e.count:
                    counts[e.key] = counts.get(e.key, 0) + e.count
            return {"t0_ns": t0, "t1_ns": t1, "profiler": counts}

        res = {"pid": os.getpid(), "torch": torch.__version__, "cuda": torch.version.cuda,
               "device": torch.cuda.get_device_name(0), "steps": a.profile_steps,
               "native": counted(native, a.profile_steps),
               "train": counted(train_step, a.profile_steps)}
        with open(a.count_out, "w") as f:
            json.dump(res, f)
        return 0

    if a.seconds > 0:
        if a.ready_file:
            cpu = a.pin if a.pin >= 0 else -1
            with open(a.ready_file + ".tmp", "w") as f:
                f.write("%d %d\n" % (os.getpid(), cpu))
            os.rename(a.ready_file + ".tmp", a.ready_file)
        end = time.monotonic() + a.seconds
        ms = []
        while time.monotonic() < end:
            t = time.perf_counter_ns()
            train_step()
            torch.cuda.synchronize()
            ms.append((time.perf_counter_ns() - t) / 1e6)
        if a.times:
            with open(a.times, "w") as f:
                json.dump({"step_ms": ms}, f)
        return 0

    ms = []
    for _ in range(a.steps):
        t = time.perf_counter_ns()
        train_step()
        torch.cuda.synchronize()
        ms.append((time.perf_counter_ns() - t) / 1e6)
    if a.times:
        with open(a.times, "w") as f:
            json.dump({"step_ms": ms, "torch": torch.__version__, "cuda": torch.version.cuda,
                       "device": torch.cuda.get_device_name(0)}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
