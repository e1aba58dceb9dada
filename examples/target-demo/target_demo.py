#!/usr/bin/env python3
"""target-demo: a small Singer target that appends records to JSON Lines files (standard library only).

Config (--config FILE): {"destination": "/abs/dir"}  -> writes <destination>/<stream>.jsonl

After the records before a STATE message are flushed to disk, the target prints that STATE's
value on stdout as one JSON line: that line is the acknowledgement the orchestrator stores as the
new bookmark (Meltano's rule: only the target's stdout becomes state).
"""
import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser(prog="target-demo")
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config, encoding="utf-8") as f:
        config = json.load(f)
    destination = config.get("destination", ".")
    os.makedirs(destination, exist_ok=True)
    files = {}
    counts = {}
    try:
        for raw in sys.stdin:
            line = raw.strip()
            if not line:
                continue
            message = json.loads(line)
            kind = message.get("type")
            if kind == "RECORD":
                stream = message["stream"]
                if stream not in files:
                    files[stream] = open(os.path.join(destination, stream + ".jsonl"), "a", encoding="utf-8")
                files[stream].write(json.dumps(message["record"]) + "\n")
                counts[stream] = counts.get(stream, 0) + 1
            elif kind == "STATE":
                for f in files.values():
                    f.flush()
                    os.fsync(f.fileno())
                sys.stdout.write(json.dumps(message["value"]) + "\n")
                sys.stdout.flush()
    finally:
        for f in files.values():
            f.close()
    for stream, n in sorted(counts.items()):
        print("INFO loaded %d record(s) into %s.jsonl" % (n, stream), file=sys.stderr)


if __name__ == "__main__":
    main()
