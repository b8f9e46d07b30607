# SPDX-License-Identifier: MIT
# Write a file to stdout in 64 KiB chunks, SECONDS apart in all, as a
# recorder writes its stream, and print the longest time one write()
# blocked (the consumer not reading), in ms.  Usage: feeder.py FILE SECONDS
import os
import sys
import time

data = open(sys.argv[1], "rb").read()
chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)]
gap = float(sys.argv[2]) / max(1, len(chunks))
worst = 0.0
for c in chunks:
    t = time.monotonic()
    view = memoryview(c)
    while view:
        view = view[os.write(1, view):]
    worst = max(worst, time.monotonic() - t)
    time.sleep(gap)
os.close(1)
print("%d" % (worst * 1000), file=sys.stderr)
