#!/usr/bin/env python3
"""A tap that replays a recorded Singer stream: copies the file named by the first argument to
stdout, REPEAT times (second argument, default 1)."""
import sys

path = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
with open(path, "rb") as f:
    data = f.read()
for _ in range(repeat):
    sys.stdout.buffer.write(data)
sys.stdout.flush()
