#!/usr/bin/env python3
"""A tap as a Meltano Hub plugin is: it may answer --about --format=json, and it resumes from --state.

Environment (the plugin's env):
  ABOUT_MODE  "answer" (default): --about --format=json prints the SDK's about JSON with
              capabilities catalog, discover, state, about; "fail": --about exits 2 with a usage
              error, as a tap without --about does; "garbage": --about prints text, exit 0
  ARGV_FILE   every invocation appends its argv (a JSON array) as one line to this file
Config (--config FILE): records N (default 3): RECORDs of stream "items" with ids 1..N, those
with an id above the bookmark of --state only, then a STATE with the bookmark of the last id.
--discover prints a catalog with the stream "items".
"""
import json
import os
import sys


def main():
    args = sys.argv[1:]
    if os.environ.get("ARGV_FILE"):
        with open(os.environ["ARGV_FILE"], "a") as f:
            f.write(json.dumps(args) + "\n")
    mode = os.environ.get("ABOUT_MODE", "answer")
    if "--about" in args:
        if mode == "fail":
            sys.stderr.write("usage: about_tap.py --config CONFIG [--state STATE]\n"
                             "about_tap.py: error: unrecognized arguments: --about --format=json\n")
            sys.exit(2)
        if mode == "hang":
            import time
            time.sleep(3600)
        if mode == "garbage":
            print("about-tap 1.0")
            return
        print(json.dumps({"name": "tap-about", "description": "a test tap", "version": "1.0",
                          "capabilities": ["catalog", "discover", "state", "about"],
                          "settings": {"properties": {"records": {"type": ["integer"]},
                                                      "api_token": {"type": ["string"], "secret": True}}}}))
        return
    config = json.load(open(args[args.index("--config") + 1]))
    if "--discover" in args:
        print(json.dumps({"streams": [{"tap_stream_id": "items", "stream": "items", "key_properties": ["id"],
                                       "schema": {"type": "object", "properties": {"id": {"type": "integer"}}},
                                       "metadata": [{"breadcrumb": [], "metadata": {"inclusion": "available"}}]}]}))
        return
    after = 0
    if "--state" in args:
        with open(args[args.index("--state") + 1]) as f:
            after = json.load(f).get("bookmarks", {}).get("items", {}).get("id", 0)
    n = int(config.get("records", 3))
    out = sys.stdout
    out.write(json.dumps({"type": "SCHEMA", "stream": "items", "key_properties": ["id"],
                          "schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}) + "\n")
    for i in range(after + 1, n + 1):
        out.write(json.dumps({"type": "RECORD", "stream": "items", "record": {"id": i}}) + "\n")
    out.write(json.dumps({"type": "STATE", "value": {"bookmarks": {"items": {"id": max(n, after)}}}}) + "\n")
    out.flush()


main()
