#!/usr/bin/env python3
"""A Singer tap for the console's browser tests: prints hostile text, then waits.

Config (--config FILE):
  payload       text that goes into a stderr log line and into the bookmark value of stream "pages"
  release_file  after the first STATE the tap logs "WAITING FOR RELEASE" and waits until this file
                exists (so a test can watch the run live), then logs "RELEASED", prints a second
                RECORD and STATE, and exits 0
"""
import json
import os
import sys
import time


def out(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def main():
    args = sys.argv[1:]
    config = json.load(open(args[args.index("--config") + 1]))
    payload = config["payload"]
    log("starting; payload: " + payload)
    out({"type": "SCHEMA", "stream": "pages", "schema": {"type": "object"}, "key_properties": ["id"]})
    out({"type": "RECORD", "stream": "pages", "record": {"id": 1, "title": payload}})
    out({"type": "STATE", "value": {"bookmarks": {"pages": {"replication_key": "title", "replication_key_value": payload}}}})
    log("WAITING FOR RELEASE")
    release = config["release_file"]
    while not os.path.exists(release):
        time.sleep(0.05)
    log("RELEASED")
    out({"type": "RECORD", "stream": "pages", "record": {"id": 2, "title": "second"}})
    out({"type": "STATE", "value": {"bookmarks": {"pages": {"replication_key": "title", "replication_key_value": payload}}}})


if __name__ == "__main__":
    main()
