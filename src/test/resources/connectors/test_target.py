#!/usr/bin/env python3
"""A Singer target for tests: acknowledges each STATE by printing its value, or misbehaves.

Config (--config FILE), all optional:
  mode       "echo" (default) | "fail-before-state" | "junk" | "empty" | "hang" | "ignore-sigterm"
             | "fail-after-state" | "digest" | "flush-on-sigterm"
  output     path of a file to append received RECORD lines to (raw bytes), or the digest
  exit_code  for "fail-*" modes (default 3)
  pid_file   where the target writes its pid
  flush_seconds  "flush-on-sigterm": echoes states like "echo"; on SIGTERM it takes this long
             (default 1) to "flush its batch", prints the last state again with "flushed": true
             added, and exits 0, as a batching target does; it flushes the same way at the end
             of its input
"""
import hashlib
import json
import os
import signal
import sys
import time


def say(value):
    sys.stdout.write(value + "\n")
    sys.stdout.flush()


def main():
    args = sys.argv[1:]
    config = json.load(open(args[args.index("--config") + 1]))
    mode = config.get("mode", "echo")
    if config.get("pid_file"):
        with open(config["pid_file"], "a") as f:
            f.write(str(os.getpid()) + "\n")
    if mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    last = {}
    if mode == "flush-on-sigterm":
        def flush(signum, frame):
            time.sleep(config.get("flush_seconds", 1))
            value = dict(last.get("value") or {})
            value["flushed"] = True
            say(json.dumps(value))
            sys.stderr.write("flushed on SIGTERM\n")
            sys.stderr.flush()
            os._exit(0)
        signal.signal(signal.SIGTERM, flush)
    if mode == "fail-before-state":
        sys.stderr.write("cannot connect to the destination\n")
        sys.exit(config.get("exit_code", 3))
    digest = hashlib.sha256()
    out = open(config["output"], "ab") if config.get("output") and mode != "digest" else None
    states = 0
    for raw in sys.stdin.buffer:
        digest.update(raw)
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            sys.stderr.write("bad input line\n")
            sys.exit(5)
        kind = msg.get("type")
        if kind == "RECORD" and out:
            out.write(raw)
            out.flush()
        if kind == "STATE":
            states += 1
            if mode == "junk":
                say("plain text log line from the target")
                say('{"bookmarks": {"truncated": ')
            if mode == "empty":
                say("{}")
                continue
            say(json.dumps(msg["value"]))
            last["value"] = msg["value"]
            if mode == "fail-after-state":
                sys.stderr.write("failing after acknowledging a state\n")
                sys.exit(config.get("exit_code", 3))
    if mode == "flush-on-sigterm":
        # A batching target drains at the end of its input too: whichever comes first (the end of
        # input because the tap was stopped, or SIGTERM), the last state is flushed once.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        value = dict(last.get("value") or {})
        value["flushed"] = True
        say(json.dumps(value))
        sys.stderr.write("flushed at the end of input\n")
    if mode == "digest" and config.get("output"):
        with open(config["output"], "w") as f:
            f.write(digest.hexdigest())
    if mode in ("hang", "ignore-sigterm"):
        while True:
            time.sleep(1)
    sys.stderr.write("target done, %d state(s)\n" % states)


if __name__ == "__main__":
    main()
