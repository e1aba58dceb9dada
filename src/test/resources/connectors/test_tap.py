#!/usr/bin/env python3
"""A Singer tap for tests: replays a recorded stream, or misbehaves on purpose.

Config (--config FILE), all optional:
  file           path of a .jsonl file whose lines are printed as they are (binary-safe)
  records        N: generate N RECORD messages of stream "items" with a STATE every `state_every`
  state_every    default 1000
  mode           "replay" (default) | "crash-after-state" | "hang" | "ignore-sigterm" | "garbage"
                 | "huge-line" | "non-utf8" | "fork-child" | "env" | "wait-file" (env prints ENV, CONFIG and the config
                 file's path and mode to stderr)
  exit_code      exit code after printing (default 0)
  huge_bytes     size of the huge-line RECORD (default 50 MiB)
  pid_file       where the tap (and "fork-child"'s children) write their pids, one per line
  release_file   "wait-file": print STATE "before-wait", wait until this file exists, print STATE
                 "after-wait" and exit
  discover       with --discover: "ok" (default) prints the catalog {"streams": []}; "hang" prints the
                 start of a catalog, keeps stdout open and sleeps (its pid goes to pid_file)
Prints its argv and the state file it got to stderr, so tests can check what it was given.
"""
import json
import os
import signal
import sys
import time


def out(line):
    sys.stdout.buffer.write(line if isinstance(line, bytes) else line.encode())
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()


def main():
    args = sys.argv[1:]
    config = json.load(open(args[args.index("--config") + 1]))
    if "--state" in args:
        with open(args[args.index("--state") + 1], "rb") as f:
            sys.stderr.write("STATE-FILE " + f.read().decode() + "\n")
    if "--catalog" in args:
        with open(args[args.index("--catalog") + 1]) as f:
            sys.stderr.write("CATALOG " + json.dumps(json.load(f), separators=(",", ":")) + "\n")
    sys.stderr.write("ARGS " + json.dumps(args) + "\n")
    sys.stderr.flush()
    mode = config.get("mode", "replay")
    pid_file = config.get("pid_file")

    if "--discover" in args:
        if config.get("discover") == "hang":
            if pid_file:
                with open(pid_file, "a") as f:
                    f.write(str(os.getpid()) + "\n")
            sys.stdout.write('{"streams": [')
            sys.stdout.flush()
            sys.stderr.write("DISCOVERING\n")
            sys.stderr.flush()
            time.sleep(3600)
        out(json.dumps({"streams": []}))
        return

    if mode == "env":
        sys.stderr.write("ENV " + json.dumps(dict(os.environ), sort_keys=True) + "\n")
        sys.stderr.write("CONFIG " + json.dumps(config) + "\n")
        config_path = args[args.index("--config") + 1]
        sys.stderr.write("CONFIG-FILE %s mode %o\n" % (config_path, os.stat(config_path).st_mode & 0o777))
    if mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "fork-child":
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            gpid = os.fork()
            if gpid == 0:
                time.sleep(3600)
                os._exit(0)
            time.sleep(3600)
            os._exit(0)
    if pid_file:
        with open(pid_file, "a") as f:
            f.write(str(os.getpid()) + "\n")
            f.flush()

    if "file" in config:
        with open(config["file"], "rb") as f:
            for raw in f:
                out(raw.rstrip(b"\n"))
    n = config.get("records", 0)
    every = config.get("state_every", 1000)
    if n:
        out(json.dumps({"type": "SCHEMA", "stream": "items", "schema": {"type": "object"}, "key_properties": ["id"]}))
        for i in range(1, n + 1):
            out(json.dumps({"type": "RECORD", "stream": "items", "record": {"id": i, "name": "item %d" % i}}))
            if i % every == 0:
                out(json.dumps({"type": "STATE", "value": {"bookmarks": {"items": {"id": i}}}}))
    if mode == "crash-after-state":
        out(json.dumps({"type": "STATE", "value": {"bookmarks": {"items": {"id": "crash-point"}}}}))
        time.sleep(0.2)
        sys.stderr.write("Traceback: simulated crash after a STATE\n")
        sys.exit(1)
    if mode == "garbage":
        out('{"type": "RECORD", "stream": "items", "record": {"id": 99}}')
        out("this is not json at all")
    if mode == "huge-line":
        size = config.get("huge_bytes", 50 * 1024 * 1024)
        payload = "x" * size
        out('{"type": "RECORD", "stream": "big", "record": {"blob": "' + payload + '"}}')
        out(json.dumps({"type": "STATE", "value": {"bookmarks": {"big": {"done": True}}}}))
    if mode == "non-utf8":
        out(b'{"type": "RECORD", "stream": "bin", "record": {"s": "\xff\xfe\xc3\x28 raw"}}')
        out(json.dumps({"type": "STATE", "value": {"bookmarks": {"bin": {"n": 1}}}}))
    if mode == "wait-file":
        out(json.dumps({"type": "STATE", "value": {"bookmarks": {"items": {"id": "before-wait"}}}}))
        sys.stderr.write("WAITING\n")
        sys.stderr.flush()
        while not os.path.exists(config["release_file"]):
            time.sleep(0.05)
        out(json.dumps({"type": "STATE", "value": {"bookmarks": {"items": {"id": "after-wait"}}}}))
    if mode in ("hang", "ignore-sigterm", "fork-child"):
        out(json.dumps({"type": "STATE", "value": {"bookmarks": {"items": {"id": "before-hang"}}}}))
        sys.stderr.write("READY\n")
        sys.stderr.flush()
        while True:
            time.sleep(1)
    sys.exit(config.get("exit_code", 0))


if __name__ == "__main__":
    main()
