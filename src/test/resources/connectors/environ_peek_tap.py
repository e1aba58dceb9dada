#!/usr/bin/env python3
"""A tap for the run-as-user test: tries to read the environment of its parent (the service) from
/proc/<ppid>/environ and prints the outcome, its uid and whether it could read its config, then
prints one STATE message and exits 0."""
import json
import os
import sys


def main():
    w = sys.stderr.write
    try:
        data = open("/proc/%d/environ" % os.getppid(), "rb").read()
        w("ENVIRON READABLE %d bytes\n" % len(data))
    except OSError as e:
        w("ENVIRON DENIED errno %d\n" % e.errno)
    w("UID %d\n" % os.getuid())
    args = sys.argv[1:]
    json.load(open(args[args.index("--config") + 1]))
    w("CONFIG READ\n")
    sys.stderr.flush()
    sys.stdout.write(json.dumps({"type": "STATE", "value": {"peeked": True}}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
