#!/usr/bin/env python3
"""Of the allocation sampled on the benchmark's caller threads (jdk.ObjectAllocationSample, by weight), the share
whose stack has a frame matching each pattern ("A !B": matching A and no frame matching B).

usage: allocshare.py recording.jfr [pattern ...]"""
import sys

from jfr_callers import caller_events, matches, qualified

recording, patterns = sys.argv[1], sys.argv[2:]
total = 0
weights = {pattern: 0 for pattern in patterns}
for frames, values in caller_events(recording, "jdk.ObjectAllocationSample"):
    weight = values["weight"]
    total += weight
    text = qualified(frames)
    for pattern in patterns:
        if matches(pattern, text):
            weights[pattern] += weight
for pattern in patterns:
    print("%6.1f%%  %s" % (100.0 * weights[pattern] / max(total, 1), pattern))
