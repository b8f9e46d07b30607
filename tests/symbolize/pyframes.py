# SPDX-License-Identifier: MIT
"""Takes Python stacks the way the recorder would (code object address and
instruction offset per frame, plus each code object's name, first line
and co_linetable), from a real interpreter running train_loop.py, and
writes them as input for tests/tools/pylog, with the interpreter's own
answer (f_lineno) beside them.

    python3 pyframes.py DESCRIPTION EXPECTED

Stacks: 1, the call in step(); 2, the call in other(), with other's code
object described at step's address, as when a code object is freed and
another takes its place after recording; 3, a code object never described
above the outermost frame of stack 1.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_loop  # noqa: E402

VERSION = sys.version_info[0] << 8 | sys.version_info[1]
PID = os.getpid()
stacks = []


def qualname(co):
    return getattr(co, "co_qualname", co.co_name)  # 3.10 has only co_name


def launch(what):
    frames = []
    f = sys._getframe(0)
    while f is not None:
        # f_lasti counts bytes; the recorder stores 2-byte code units
        frames.append((f.f_code, f.f_lasti // 2, f.f_lineno))
        f = f.f_back
    stacks.append(frames)


def code_line(addr, co):
    return "\t".join(["code", str(PID), hex(addr), hex(VERSION), str(co.co_firstlineno),
                      co.co_linetable.hex(), co.co_filename, qualname(co)])


def main():
    train_loop.Trainer(launch).run()
    first, second = stacks
    step_addr = id(train_loop.step.__code__)
    desc, expect = [], []
    seen = set()
    for co, _, _ in first:
        if id(co) not in seen:
            seen.add(id(co))
            desc.append(code_line(id(co), co))
    desc.append("stack\t%d\t1\t" % PID + "\t".join("%s:%d" % (hex(id(co)), lasti)
                                                for co, lasti, _ in first))
    expect += ["%s\t%s\t%d" % (co.co_filename, qualname(co), line) for co, _, line in first]
    expect.append("--")
    # other()'s code object now lives at step's address
    other = train_loop.other.__code__
    desc.append(code_line(step_addr, other))
    frames = [(step_addr if co is other else id(co), lasti) for co, lasti, _ in second]
    for co, _, _ in second:
        if id(co) not in seen and co is not other:
            seen.add(id(co))
            desc.append(code_line(id(co), co))
    desc.append("stack\t%d\t2\t" % PID + "\t".join("%s:%d" % (hex(a), lasti) for a, lasti in frames))
    expect += ["%s\t%s\t%d" % (co.co_filename, qualname(co), line) for co, _, line in second]
    expect.append("--")
    co, lasti, line = first[-1]
    desc.append("stack\t%d\t3\t0x10:4\t%s:%d" % (PID, hex(id(co)), lasti))
    expect += ["null\tnull\tnull", "%s\t%s\t%d" % (co.co_filename, qualname(co), line), "--"]
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(desc) + "\n")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(expect) + "\n")


main()
