#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks lib/'s layering against the tables in lib/README.md.

    check_layers.py ROOT [ARCHIVE_DIR]

ROOT is the repository (its lib/ and lib/README.md are read).  Every
#include "..." in lib/ must be a public header of a layer the including
folder may use (lib/README.md "Layers", "may use"), or a header in the
including file's own folder, or in its parent folder for a subfolder.  With
ARCHIVE_DIR (where libingero_<layer>.a are), every global symbol defined in
an archive must start with ilog_ or a documented subsystem prefix, and no
two objects of one archive may share a basename (ar keys members by it).
Prints one line per violation and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

root = sys.argv[1]
lib = os.path.join(root, "lib")
readme = open(os.path.join(lib, "README.md")).read()


def table(title):
    """Rows of the first table after the '## title' heading."""
    sec = readme.split("## " + title + "\n", 1)[1].split("\n## ", 1)[0]
    rows = [l for l in sec.splitlines() if l.startswith("|")][2:]
    return [[c.strip().strip("`") for c in r.strip("|").split("|")] for r in rows]


may_use = {}
for row in table("Layers"):
    layer, uses = row[0], row[2]
    may_use[layer] = {layer} | {u.strip() for u in uses.split(",") if u.strip()}
header_layer = {row[0]: row[1] for row in table("Public headers")}
prefixes = ["ilog_"] + re.findall(r"`(\w+_)` for", readme)

bad = []
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for dirpath, _, files in os.walk(lib):
    rel = os.path.relpath(dirpath, lib)
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, f)
        shown = os.path.relpath(path, root)
        parts = rel.split(os.sep)
        if parts[0] == "include":
            name = "ingero/" + f
            layer = header_layer.get(name)
            if layer is None:
                bad.append(f"{shown}: public header not in lib/README.md's table")
                continue
        else:
            layer = parts[0]
            if layer not in may_use:
                bad.append(f"{shown}: folder '{layer}' is not a layer in lib/README.md")
                continue
        for inc in inc_re.findall(open(path).read()):
            if inc.startswith("ingero/"):
                il = header_layer.get(inc)
                if il is None:
                    bad.append(f"{shown}: includes '{inc}', not a public header")
                elif il not in may_use[layer]:
                    bad.append(f"{shown}: layer '{layer}' includes '{inc}' of layer '{il}'")
                continue
            if parts[0] == "include":
                if inc != "ingero_events.h":
                    bad.append(f"{shown}: a public header includes '{inc}'")
                continue
            target = os.path.normpath(os.path.join(dirpath, inc))
            own = os.path.normpath(dirpath)
            parent = os.path.dirname(own) if len(parts) > 1 else own
            if os.path.dirname(target) not in (own, parent) or not os.path.exists(target):
                bad.append(f"{shown}: includes '{inc}', another folder's internal header")

if len(sys.argv) > 2:
    arch = sys.argv[2]
    for layer in may_use:
        a = os.path.join(arch, f"libingero_{layer}.a")
        if not os.path.exists(a):
            bad.append(f"{a}: missing")
            continue
        members = subprocess.run(["ar", "t", a], capture_output=True, text=True).stdout.split()
        dups = sorted({m for m in members if members.count(m) > 1})
        if dups:
            bad.append(f"libingero_{layer}.a: members share a basename: {' '.join(dups)}")
        srcs = [f for d, _, fs in os.walk(os.path.join(lib, layer)) for f in fs if f.endswith(".c")]
        if len(members) != len(srcs):
            bad.append(f"libingero_{layer}.a: {len(members)} objects for {len(srcs)} sources")
        nm = subprocess.run(["nm", "-g", "--defined-only", a], capture_output=True, text=True).stdout
        for line in nm.splitlines():
            f = line.split()
            # names beginning "__" are the implementation's (sanitizers add
            # __odr_asan.NAME, __asan_*), not ours
            if len(f) == 3 and not f[2].startswith("__") and \
                    not any(f[2].startswith(p) for p in prefixes):
                bad.append(f"libingero_{layer}.a: global '{f[2]}' has no documented prefix")

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
