#!/usr/bin/env python3
"""A target that parses each Singer message on stdin, counts RECORDs per stream, and on end of
input prints the last STATE value on stdout and "<stream> <records>" lines on stderr. With
the argument "--stop-after N" it exits after reading N lines (a target that dies early)."""
import json
import sys

stop_after = None
if len(sys.argv) > 2 and sys.argv[1] == "--stop-after":
    stop_after = int(sys.argv[2])

records = {}
state = None
read = 0
for line in sys.stdin:
    read += 1
    if line.strip():
        message = json.loads(line)
        if message.get("type") == "RECORD":
            records[message["stream"]] = records.get(message["stream"], 0) + 1
        elif message.get("type") == "STATE":
            state = message["value"]
    if stop_after is not None and read >= stop_after:
        sys.stderr.write("stopping after %d lines\n" % read)
        sys.exit(0)
for stream in sorted(records):
    sys.stderr.write("%s %d\n" % (stream, records[stream]))
if state is not None:
    sys.stdout.write(json.dumps(state) + "\n")
sys.stdout.flush()
