#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Answers computed straight from `ingero-export` JSON lines, independently of
the ClickHouse sink, for its tests to compare with what ClickHouse says.

  logcalc.py WHAT [JSONL...]      (stdin when no file)

WHAT:
  stacks          one line per stack record: node, recorder id, fleet id (the
                  rule of docs/fleet.md "Stack ids", written here from the
                  text), keys and offsets
  events          TSV per cuda record: node, pid, tid, ts_ns (wall), dur_ns,
                  op number, ret, bytes, fleet stack id
  op-quantiles    TSV as docs/fleet.md's query op-quantiles
  op-quantiles-nearest-rank, minute-p99, stragglers, straggler-ranks,
  top-stacks (its first four columns), per-node: the same, for the query of
                  that name
  --opnums FILE first: op numbers by name ("number<TAB>name" lines)

Each input file is a separate log (its own nodes and address spaces).
"""
import calendar
import datetime
import json
import sys

M64 = (1 << 64) - 1
OPNUM = {}  # op name -> number: --opnums FILE of "number<TAB>name" lines


def wall_ns(t):
    """RFC 3339 with nanoseconds, as the jsonl export writes "time"."""
    base, _, frac = t.rstrip("Z").partition(".")
    dt = datetime.datetime.strptime(base, "%Y-%m-%dT%H:%M:%S")
    return calendar.timegm(dt.timetuple()) * 10**9 + int((frac or "0").ljust(9, "0")[:9])


def fleet_id(frames):
    h = 0xCBF29CE484222325
    for key, off in frames:
        for b in key.encode() + b"\0" + off.to_bytes(8, "little"):
            h = ((h ^ b) * 0x100000001B3) & M64
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & M64
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & M64
    h ^= h >> 31
    return h or 1


def read(paths):
    """Yield (record, node name, fleet stack id map) over every log."""
    for path in paths or ["-"]:
        f = sys.stdin if path == "-" else open(path)
        nodes = {}       # node_index -> name
        maps = {}        # (node_index, pid) -> [(start, end, offset, key, path)]
        ids = {}         # (node_index, recorder id) -> fleet id
        for line in f:
            r = json.loads(line)
            ni = r.get("node_index", 0)
            t = r["type"]
            if t == "header":
                nodes[ni] = r["node"]
            elif t == "process":
                maps[(ni, r["pid"])] = []
            elif t == "mapping":
                lst = maps.setdefault((ni, r["pid"]), [])
                start, end = int(r["start"], 16), int(r["end"], 16)
                lst[:] = [m for m in lst if m[1] <= start or m[0] >= end]
                key = r["build_id"] if r["build_id"] else "path:" + r["path"]
                lst.append((start, end, int(r["offset"], 16), key, r["path"]))
            elif t == "stack":
                frames = []
                for ip in (int(x, 16) for x in r["ips"]):
                    m = next((m for m in maps.get((ni, r["pid"]), []) if m[0] <= ip < m[1]), None)
                    frames.append((m[3], ip - m[0] + m[2]) if m else ("", ip))
                r["_frames"] = frames
                r["_fid"] = ids[(ni, int(r["id"], 16))] = fleet_id(frames)
            elif t == "cuda":
                sid = int(r["stack_id"], 16)
                r["_fid"] = ids.get((ni, sid), 0) if sid else 0
            yield r, nodes.get(ni, "")
        if f is not sys.stdin:
            f.close()


def cuda(paths):
    for r, node in read(paths):
        if r["type"] == "cuda":
            yield node, r


def rank_floor(sorted_vals, q):
    """ClickHouse quantileExact: the (floor(q*n)+1)-th smallest."""
    n = len(sorted_vals)
    return sorted_vals[min(int(q * n), n - 1)]


def rank_nearest(sorted_vals, pct):
    """Nearest rank: the ceil(pct/100*n)-th smallest, in integers."""
    n = len(sorted_vals)
    return sorted_vals[(n * pct + 99) // 100 - 1]


def by(paths, key, pred=lambda node, r: True):
    groups = {}
    for node, r in cuda(paths):
        if pred(node, r):
            groups.setdefault(key(node, r), []).append(r)
    return groups


def arrivals(paths):
    """Per (node, pid): rank and the sorted entry times of ncclAllReduce."""
    rank, got = {}, {}
    for r, node in read(paths):
        if r["type"] == "header":
            rank[node] = r["rank"]
        if r["type"] == "cuda" and r["op"] == "ncclAllReduce":
            got.setdefault((node, r["pid"]), []).append(wall_ns(r["time"]))
    return [(rank[n], sorted(v)) for (n, _), v in sorted(got.items())]


def stragglers(paths):
    per = arrivals(paths)
    out = []
    for seq in range(1, max(len(v) for _, v in per) + 1):
        here = [(v[seq - 1], rk) for rk, v in per if len(v) >= seq]
        last = max(here)
        out.append((seq, last[1], last[0] - min(here)[0]))
    return out


def main():
    what, paths = sys.argv[1], sys.argv[2:]
    w = sys.stdout.write
    if what == "stacks":
        for r, node in read(paths):
            if r["type"] == "stack":
                w(json.dumps({"node": node, "id": r["id"], "fid": str(r["_fid"]),
                              "keys": [k for k, _ in r["_frames"]],
                              "offsets": [o for _, o in r["_frames"]]}) + "\n")
    elif what == "events":
        for node, r in cuda(paths):
            w("%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n" % (
                node, r["pid"], r["tid"], wall_ns(r["time"]), r["dur_ns"], OPNUM[r["op"]],
                r["ret"], r["bytes"], r["_fid"]))
    elif what in ("op-quantiles", "op-quantiles-nearest-rank"):
        g = by(paths, lambda node, r: (node, r["op"]))
        rows = []
        for (node, op), rs in g.items():
            d = sorted(r["dur_ns"] for r in rs)
            if what == "op-quantiles":
                rows.append(((node, -sum(d)), "%s\t%s\t%d\t%d\t%d\t%d" % (
                    node, op, len(d), rank_floor(d, 0.5), rank_floor(d, 0.99), sum(d))))
            else:
                rows.append(((node, OPNUM[op]), "%s\t%d\t%d\t%d\t%d" % (
                    node, OPNUM[op], len(d), rank_nearest(d, 50), rank_nearest(d, 99))))
        for _, line in sorted(rows):
            w(line + "\n")
    elif what == "minute-p99":
        g = by(paths, lambda node, r: (node, wall_ns(r["time"]) // 60000000000 * 60),
               lambda node, r: r["op"] == "cudaStreamSynchronize")
        for (node, minute), rs in sorted(g.items()):
            d = sorted(r["dur_ns"] for r in rs)
            stamp = datetime.datetime.fromtimestamp(minute, datetime.timezone.utc)
            w("%s\t%s\t%d\t%d\n" % (node, stamp.strftime("%Y-%m-%d %H:%M:%S"), len(d),
                                    rank_floor(d, 0.99)))
    elif what == "stragglers":
        for seq, rk, late in stragglers(paths):
            w("%d\t%d\t%d\n" % (seq, rk, late))
    elif what == "straggler-ranks":
        tot = {}
        for _, rk, late in stragglers(paths):
            n, s = tot.get(rk, (0, 0))
            tot[rk] = (n + 1, s + late)
        for rk, (n, s) in sorted(tot.items(), key=lambda kv: -kv[1][1]):
            w("%d\t%d\t%d\n" % (rk, n, s))
    elif what == "top-stacks":
        calls, total, nodes = {}, {}, {}
        for r, node in read(paths):
            if r["type"] == "cuda" and r["_fid"]:
                f = r["_fid"]
                calls[f] = calls.get(f, 0) + 1
                total[f] = total.get(f, 0) + r["dur_ns"]
                nodes.setdefault(f, set()).add(node)
        top = sorted(total, key=lambda f: (-total[f], f))[:10]
        for f in top:
            w("%d\t%d\t%d\t%d\n" % (f, calls[f], total[f], len(nodes[f])))
    elif what == "per-node":
        g = by(paths, lambda node, r: node)
        for node, rs in sorted(g.items()):
            w("%s\t%d\t%d\t%d\n" % (node, len(rs), min(wall_ns(r["time"]) for r in rs),
                                    max(wall_ns(r["time"]) + r["dur_ns"] for r in rs)))
    else:
        sys.exit("logcalc.py: unknown WHAT " + what)


if __name__ == "__main__":
    # op numbers: --opnums FILE of "number<TAB>name" lines (the ops table)
    if len(sys.argv) > 2 and sys.argv[1] == "--opnums":
        with open(sys.argv[2]) as f:
            for line in f:
                n, name = line.rstrip("\n").split("\t")[:2]
                OPNUM[name] = int(n)
        del sys.argv[1:3]
    main()
