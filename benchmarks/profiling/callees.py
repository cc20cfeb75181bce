#!/usr/bin/env python3
"""For the caller threads' samples whose stack has a frame matching X (the outermost such frame), the frames X
called, DEPTH levels down, by share of all caller samples: where the time under X goes.

usage: callees.py recording.jfr jdk.CPUTimeSample X [DEPTH]"""
import json, subprocess, sys, collections, re
f, event, x = sys.argv[1], sys.argv[2], sys.argv[3]
depth = int(sys.argv[4]) if len(sys.argv) > 4 else 1
out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "200", "--events", event, f],
                     capture_output=True, text=True, check=True).stdout
events = json.loads(out)["recording"]["events"]
c = collections.Counter(); n = 0; total = 0
for e in events:
    st = e["values"].get("stackTrace")
    if not st: continue
    frames = ["%s.%s:%s" % (fr["method"]["type"]["name"].split('/')[-1], fr["method"]["name"], fr.get("lineNumber")) for fr in st["frames"]]
    if not any("UserPathBenchmark" in fr for fr in frames): continue
    total += 1
    idx = [i for i, fr in enumerate(frames) if re.search(x, fr)]
    if not idx: continue
    i = max(idx)  # outermost
    n += 1
    path = " > ".join(frames[max(i - depth, 0):i][::-1]) if i > 0 else "(self)"
    c[path] += 1
print("samples with %s: %d of %d caller samples" % (x, n, total))
for k, v in c.most_common(30):
    print("%6.1f%% %5d  %s" % (100.0 * v / total, v, k))
