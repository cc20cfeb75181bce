#!/usr/bin/env python3
"""Shares of a JFR recording's CPU samples on the benchmark's caller threads (stacks through UserPathBenchmark):
for each pattern, the share of samples whose stack has a frame matching it ("A !B": matching A and no frame
matching B), then the top self frames.

usage: stacks.py recording.jfr jdk.CPUTimeSample|jdk.ExecutionSample [pattern ...]"""
import json, subprocess, sys, collections, re
f, event = sys.argv[1], sys.argv[2]
patterns = sys.argv[3:]
out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "200", "--events", event, f],
                     capture_output=True, text=True, check=True).stdout
events = json.loads(out)["recording"]["events"]
total = 0
incl = collections.Counter()
selfc = collections.Counter()
inside_caller = 0
for e in events:
    st = e["values"].get("stackTrace")
    if not st: continue
    frames = ["%s.%s" % (fr["method"]["type"]["name"], fr["method"]["name"]) for fr in st["frames"]]
    thread = (e["values"].get("sampledThread") or e["values"].get("eventThread") or {}).get("javaName") or ""
    if "UserPathBenchmark" not in " ".join(frames):
        continue  # only the callers' threads
    total += 1
    selfc[frames[0]] += 1
    joined = "\n".join(frames)
    for p in patterns:
        # "A !B": stacks with a frame matching A and none matching B.
        wanted, _, unwanted = p.partition(" !")
        if re.search(wanted, joined) and not (unwanted and re.search(unwanted, joined)):
            incl[p] += 1
print("caller samples:", total)
for p in patterns:
    print("%6.1f%%  %5d  %s" % (100.0 * incl[p] / max(total,1), incl[p], p))
print("top self frames:")
for fr, n in selfc.most_common(25):
    print("%6.1f%%  %5d  %s" % (100.0 * n / max(total,1), n, fr))
