#!/usr/bin/env python3
"""Summarises the CPU samples (jdk.ExecutionSample) of a JFR recording.

    bench/jfr-top.py RECORDING.jfr [--after HH:MM:SS] [--before HH:MM:SS] [--top 25] [--match TEXT]

Prints the methods with the most samples on top of the stack (self), and the methods present
anywhere in the most stacks (inclusive, frames matching --match, default io.tapline). Needs the
JDK's `jfr` tool on PATH. Samples are taken every 10-20 ms per running Java thread (profile
settings), so a few hundred samples are a rough picture, not a measurement.
"""
import argparse, collections, re, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("recording")
ap.add_argument("--after")
ap.add_argument("--before")
ap.add_argument("--top", type=int, default=25)
ap.add_argument("--match", default="io.tapline")
a = ap.parse_args()
text = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", a.recording],
                      capture_output=True, text=True, check=True).stdout
self_, incl, n = collections.Counter(), collections.Counter(), 0
for ev in text.split("jdk.ExecutionSample")[1:]:
    t = re.search(r"startTime = (\d\d:\d\d:\d\d)", ev)
    if t and ((a.after and t.group(1) < a.after) or (a.before and t.group(1) >= a.before)):
        continue
    m = re.search(r"stackTrace = \[\s*\n(.*?)\n\s*\]", ev, re.S)
    if not m:
        continue
    frames = [re.sub(r"\s+line:.*", "", f.strip()) for f in m.group(1).split("\n") if f.strip() and f.strip() != "..."]
    if not frames:
        continue
    n += 1
    self_[frames[0]] += 1
    for f in set(frames):
        if a.match in f:
            incl[f] += 1
print(f"{n} samples")
print("\nself (top of stack):")
for f, c in self_.most_common(a.top):
    print(f"  {100 * c / n:5.1f}%  {f}")
print(f"\ninclusive (frames containing {a.match!r}):")
for f, c in incl.most_common(a.top):
    print(f"  {100 * c / n:5.1f}%  {f}")
