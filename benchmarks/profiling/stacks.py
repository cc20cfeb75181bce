#!/usr/bin/env python3
"""Shares of a JFR recording's CPU samples on the benchmark's caller threads (stacks through UserPathBenchmark):
for each pattern, the share of samples whose stack has a frame matching it ("A !B": matching A and no frame
matching B), then the top self frames.

usage: stacks.py recording.jfr jdk.CPUTimeSample|jdk.ExecutionSample [pattern ...]"""
import collections
import sys

from jfr_callers import caller_events, matches, qualified

recording, event, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
total = 0
inclusive = collections.Counter()
leaves = collections.Counter()
for frames, _ in caller_events(recording, event):
    total += 1
    text = qualified(frames)
    leaves[text.split("\n", 1)[0]] += 1
    for pattern in patterns:
        if matches(pattern, text):
            inclusive[pattern] += 1
print("caller samples:", total)
for pattern in patterns:
    print("%6.1f%%  %5d  %s" % (100.0 * inclusive[pattern] / max(total, 1), inclusive[pattern], pattern))
print("top self frames:")
for frame, n in leaves.most_common(25):
    print("%6.1f%%  %5d  %s" % (100.0 * n / max(total, 1), n, frame))
