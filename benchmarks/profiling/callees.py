#!/usr/bin/env python3
"""For the caller threads' samples whose stack has a frame matching X (the outermost such frame), the frames X
called, DEPTH levels down, by share of all caller samples: where the time under X goes.

usage: callees.py recording.jfr jdk.CPUTimeSample X [DEPTH]"""
import collections
import re
import sys

from jfr_callers import caller_events

recording, event, x = sys.argv[1], sys.argv[2], sys.argv[3]
depth = int(sys.argv[4]) if len(sys.argv) > 4 else 1
below = collections.Counter()
under_x = 0
total = 0
for frames, _ in caller_events(recording, event):
    total += 1
    named = ["%s.%s:%s" % (type_name.split("/")[-1], method, line) for type_name, method, line in frames]
    found = [i for i, frame in enumerate(named) if re.search(x, frame)]
    if not found:
        continue
    outermost = max(found)
    under_x += 1
    below[" > ".join(named[max(outermost - depth, 0):outermost][::-1]) if outermost > 0 else "(self)"] += 1
print("samples with %s: %d of %d caller samples" % (x, under_x, total))
for path, n in below.most_common(30):
    print("%6.1f%% %5d  %s" % (100.0 * n / max(total, 1), n, path))
