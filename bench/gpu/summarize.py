#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/gpu/summarize.py: the summary of bench/gpu/run (python3 stdlib only).

Reads what bench/gpu/run left in --tmp and --out, writes counts.json,
summary.json and summary.txt under --out, prints summary.txt, and exits 1
when a check failed: the recorded cudaLaunchKernel count differs from the
reference (torch.profiler, or the fake workload's own count), or the
staged CPU hog is not the first chain's culprit.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys


def args():
    ap = argparse.ArgumentParser()
    for a in ("--out", "--tmp", "--rec"):
        ap.add_argument(a, required=True)
    for a in ("--fake", "--count-pid", "--hog-pid", "--hog-cpu", "--check-rc", "--reps",
              "--steps", "--elapsed"):
        ap.add_argument(a, type=int, required=True)
    ap.add_argument("--incident-s", type=float, required=True)
    return ap.parse_args()


def jsonl(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def overhead(path):
    """Median step time per mode from overhead.tsv, pooled over rounds."""
    steps = {}
    with open(path) as f:
        next(f)
        for line in f:
            p = line.rstrip("\n").split("\t")
            steps.setdefault(p[1], []).extend(float(v) for v in p[2:])
    med = {m: statistics.median(v) for m, v in steps.items()}
    base = med.get("none")
    res = {}
    for m, v in med.items():
        res[m] = {"median_ms": round(v, 4), "samples": len(steps[m])}
        if base and m != "none":
            res[m]["overhead_pct"] = round((v / base - 1) * 100, 2)
    return res


def recorded_counts(events, pid, t0=None, t1=None):
    """Per-op counts of the cuda events of pid, inside [t0, t1] if given."""
    c = {}
    for e in events:
        if e.get("type") != "cuda" or e.get("pid") != pid:
            continue
        if t0 is not None and not (t0 <= e["ts_ns"] and e["ts_ns"] + e["dur_ns"] <= t1):
            continue
        c[e["op"]] = c.get(e["op"], 0) + 1
    return c


def launches(a, events):
    """Section 4: the recorded cudaLaunchKernel count against the reference."""
    ref = json.load(open(os.path.join(a.tmp, "count.json")))
    if a.fake:
        rec = recorded_counts(events, a.count_pid)
        want = ref["calls"]
        phases = [{
            "phase": "whole run", "reference": "the fake workload's own count",
            "recorded": rec.get("cudaLaunchKernel", 0),
            "expected": want.get("cudaLaunchKernel", 0),
            "all_ops_agree": rec == want, "recorded_ops": rec, "expected_ops": want,
        }]
    else:
        phases = []
        for name, label in (("train", "%d training steps" % ref["steps"]),
                            ("native", "%d rounds of PyTorch's own kernels" % ref["steps"])):
            ph = ref[name]
            rec = recorded_counts(events, a.count_pid, ph["t0_ns"], ph["t1_ns"])
            prof = ph["profiler"]
            drv = ("cuLaunchKernel", "cuLaunchKernelEx")
            phases.append({
                "phase": label, "reference": "torch.profiler",
                "recorded": rec.get("cudaLaunchKernel", 0),
                "expected": prof.get("cudaLaunchKernel", 0) + prof.get("cudaLaunchKernel_ptsz", 0),
                "recorded_driver": sum(rec.get(k, 0) for k in drv),
                "profiler_driver": sum(prof.get(k, 0) + prof.get(k + "_ptsz", 0) for k in drv),
                "recorded_graph_launches": rec.get("cudaGraphLaunch", 0),
                "profiler_graph_launches": prof.get("cudaGraphLaunch", 0),
                "profiler_other_launch_apis": {k: v for k, v in prof.items()
                                               if "aunch" in k and k not in (
                                                   "cudaLaunchKernel", "cudaLaunchKernel_ptsz",
                                                   "cudaGraphLaunch") and k not in drv},
                "recorded_ops": rec,
            })
    for p in phases:
        p["agree"] = p["recorded"] == p["expected"] and p["expected"] > 0 and \
            p.get("all_ops_agree", True)
    return phases, ref


def counts(a, events):
    """Section 3: per layer and op, and drops, of count.ilog."""
    stats, summary = [], {}
    for r in jsonl(os.path.join(a.tmp, "count.correlate.jsonl")):
        if r["type"] == "stat":
            stats.append({k: r[k] for k in ("layer", "op", "count", "p50_ns", "p99_ns")})
        elif r["type"] == "summary":
            summary = r
    layers = {}
    for s in stats:
        layers[s["layer"]] = layers.get(s["layer"], 0) + s["count"]
    drops = {}
    for e in events:
        if e.get("type") == "loss" and e.get("lost"):
            drops[e["source"]] = drops.get(e["source"], 0) + e["lost"]
    return {"cuda_events": summary.get("cuda_events", 0), "lost": summary.get("lost", 0),
            "lost_by_source": drops, "by_layer": layers,
            "by_op": sorted(stats, key=lambda s: (s["layer"], -s["count"], s["op"]))}


def incident(a):
    chains = [r for r in jsonl(os.path.join(a.tmp, "incident.correlate.jsonl"))
              if r["type"] == "chain"]
    chains.sort(key=lambda c: c.get("rank", 0))
    first = chains[0] if chains else {}
    return {"hog_pid": a.hog_pid, "hog_cpu": a.hog_cpu, "chains": len(chains),
            "first": {k: first.get(k) for k in ("pattern", "severity", "culprit_pid",
                                                  "culprit_comm", "pid", "comm", "op",
                                                  "lost_ns", "title")},
            "hog_first": bool(first) and first.get("culprit_pid") == a.hog_pid}


def main():
    a = args()
    events = list(jsonl(os.path.join(a.tmp, "count.jsonl")))
    ov = overhead(os.path.join(a.out, "overhead.tsv"))
    phases, ref = launches(a, events)
    cn = counts(a, events)
    inc = incident(a)
    with open(os.path.join(a.out, "check.txt")) as f:
        check_last = f.read().strip().splitlines()[-1:] or [""]
    ver = subprocess.run([a.rec, "--version"], capture_output=True, text=True).stdout.strip()
    if a.fake:
        device = "fake CUDA stack (tests/fakecuda workload), no GPU"
    else:
        device = "%s, torch %s, CUDA %s" % (ref.get("device"), ref.get("torch"), ref.get("cuda"))
    agree = all(p["agree"] for p in phases[:1])
    ok = agree and inc["hog_first"]
    res = {"time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "host": platform.node(), "kernel": platform.release(), "recorder": ver,
           "device": device, "fake": bool(a.fake), "elapsed_s": a.elapsed,
           "check": {"exit": a.check_rc, "last_line": check_last[0]},
           "overhead": ov, "counts": cn, "launches": phases, "incident": inc,
           "counts_agree": agree, "hog_ranked_first": inc["hog_first"], "pass": ok}

    L = []
    L.append("ingero bench/gpu/run  %s  %s" % (res["time"], res["host"]))
    L.append("  device: %s; kernel %s; %s" % (device, res["kernel"], ver or "ingero-record"))
    L.append("1 check      %s" % check_last[0])
    n = ov.get("none", {}).get("samples", 0)
    if a.fake:
        what = "median of %d runs' mean step (%d steps a run)" % (n, a.steps)
    else:
        what = "median of %d steps (%d runs of %d)" % (n, a.reps, a.steps)
    L.append("2 overhead   %d rounds interleaved; per mode the %s:" % (a.reps, what))
    names = {"none": "no recorder", "rec": "ingero-record", "nostack": "--stack=false"}
    for m in ("none", "rec", "nostack"):
        if m in ov:
            o = ov[m]
            pct = "" if m == "none" else "  %+.1f%%" % o["overhead_pct"]
            L.append("               %-15s %10.3f ms%s" % (names[m], o["median_ms"], pct))
    L.append("3 counts     %d CUDA events, %d dropped%s; per layer: %s" % (
        cn["cuda_events"], cn["lost"],
        " (%s)" % ", ".join("%s %d" % kv for kv in sorted(cn["lost_by_source"].items()))
        if cn["lost_by_source"] else "",
        ", ".join("%s %d" % kv for kv in sorted(cn["by_layer"].items()))))
    for s in cn["by_op"]:
        L.append("               %-8s %-28s %9d" % (s["layer"], s["op"], s["count"]))
    for p in phases:
        L.append("4 launches   %s: cudaLaunchKernel recorded %d, %s %d: %s" % (
            p["phase"], p["recorded"], p["reference"], p["expected"],
            "counts agree" if p["agree"] else "COUNTS DIFFER"))
        if a.fake:
            L.append("               every op: %s" % (
                "recorded = the workload's count" if p["all_ops_agree"] else "DIFFER"))
        else:
            L.append("               driver launches recorded %d, profiler %d; graph launches "
                     "recorded %d, profiler %d; other launch APIs in the profiler: %s" % (
                         p["recorded_driver"], p["profiler_driver"],
                         p["recorded_graph_launches"], p["profiler_graph_launches"],
                         json.dumps(p["profiler_other_launch_apis"]) or "none"))
    f = inc["first"]
    if f.get("pattern"):
        L.append("5 incident   ingero-hog (PID %d) on CPU %d for %.0f of %.0f s; #1 of %d chains: "
                 "%s %s, culprit %s (PID %s), %.2f s lost: %s" % (
                     a.hog_pid, a.hog_cpu, a.incident_s * 0.4, a.incident_s, inc["chains"],
                     f["severity"], f["pattern"], f["culprit_comm"], f["culprit_pid"],
                     (f["lost_ns"] or 0) / 1e9,
                     "hog ranked first" if inc["hog_first"] else "HOG NOT RANKED FIRST"))
    else:
        L.append("5 incident   ingero-hog (PID %d) on CPU %d: no causal chain: HOG NOT RANKED FIRST"
                 % (a.hog_pid, a.hog_cpu))
    L.append("result       %s (%s, %s) in %d s" % (
        "PASS" if ok else "FAIL", "counts agree" if agree else "counts differ",
        "hog ranked first" if inc["hog_first"] else "hog not ranked first", a.elapsed))
    L.append("files        %s/{summary.txt,summary.json,check.txt,overhead.tsv,counts.json,"
             "count.ilog,incident.ilog,incident-report.txt}" % a.out)
    text = "\n".join(L) + "\n"
    with open(os.path.join(a.out, "counts.json"), "w") as fo:
        json.dump({"counts": cn, "launches": phases}, fo, indent=1)
    with open(os.path.join(a.out, "summary.json"), "w") as fo:
        json.dump(res, fo, indent=1)
    with open(os.path.join(a.out, "summary.txt"), "w") as fo:
        fo.write(text)
    sys.stdout.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
