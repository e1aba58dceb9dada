#!/usr/bin/env python3
"""Copies stdin to stdout line by line, flushing each line; prints "bye" on stderr at the end."""
import sys

for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.flush()
sys.stderr.write("bye\n")
