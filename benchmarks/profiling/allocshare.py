#!/usr/bin/env python3
"""Of the allocation sampled on the benchmark's caller threads (jdk.ObjectAllocationSample, by weight), the share
whose stack has a frame matching each pattern.

usage: allocshare.py recording.jfr [pattern ...]"""
import json, subprocess, sys, re
f = sys.argv[1]; pats = sys.argv[2:]
out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "200", "--events", "jdk.ObjectAllocationSample", f], capture_output=True, text=True, check=True).stdout
tot = 0; sums = {p: 0 for p in pats}
for e in json.loads(out)["recording"]["events"]:
    st = e["values"].get("stackTrace")
    if not st: continue
    j = "\n".join("%s.%s" % (fr["method"]["type"]["name"], fr["method"]["name"]) for fr in st["frames"])
    if "UserPathBenchmark" not in j: continue
    w = e["values"]["weight"]; tot += w
    for p in pats:
        if re.search(p, j): sums[p] += w
for p in pats: print("%6.1f%%  %s" % (100.0 * sums[p] / tot, p))
