#!/usr/bin/env python3
"""A Singer tap with discovery, for the catalog cache and connection-test tests.

Config (--config FILE):
  count_file      each --discover appends one line "discover <pid>" here (tests count discoveries)
  discover_delay  seconds --discover sleeps before it prints the catalog (default 0)
  discover        "ok" (default) | "hang": print the start of a catalog, keep stdout open, sleep
  discover_streams  N: --discover prints a generated catalog of N streams (each with 4 properties
                  and their metadata, about 650 bytes a stream: 20,000 streams are 13 MB)
  test_wait_file  sync: before the first RECORD, append "STARTED <pid>" to test_wait_file and wait
                  until test_wait_file + ".go" exists (a slow connection test the test controls)
  pid_file        every invocation appends its pid here
  file            sync: a text file; one RECORD of stream "users" per line (a missing file fails
                  the way Python does: FileNotFoundError on the last stderr line, exit 1)
  hang_after      sync: after the records, keep running (a connection test must stop it)
  password        a secret: printed nowhere but in the failure message (for the masking test)
--about [--format=json] prints the tap's about JSON.
The catalog has streams "users" (key id, replication key updated_at) and "orders" (forced
FULL_TABLE). With --catalog/--properties, only selected streams are synced; the selected
properties of users are printed to stderr as "SELECTED <json>".
"""
import json
import os
import sys
import time

CATALOG = {"streams": [
    {"tap_stream_id": "users", "stream": "users", "key_properties": ["id"],
     "schema": {"type": "object", "properties": {
         "id": {"type": "integer"}, "name": {"type": ["string", "null"]},
         "email": {"type": ["string", "null"]}, "updated_at": {"type": "string", "format": "date-time"}}},
     "metadata": [
         {"breadcrumb": [], "metadata": {"inclusion": "available", "table-key-properties": ["id"],
                                         "valid-replication-keys": ["updated_at"]}},
         {"breadcrumb": ["properties", "id"], "metadata": {"inclusion": "automatic"}},
         {"breadcrumb": ["properties", "name"], "metadata": {"inclusion": "available"}},
         {"breadcrumb": ["properties", "email"], "metadata": {"inclusion": "available"}},
         {"breadcrumb": ["properties", "updated_at"], "metadata": {"inclusion": "automatic"}}]},
    {"tap_stream_id": "orders", "stream": "orders", "key_properties": ["order_id"],
     "schema": {"type": "object", "properties": {"order_id": {"type": "integer"}, "amount": {"type": "number"}}},
     "metadata": [
         {"breadcrumb": [], "metadata": {"inclusion": "available", "table-key-properties": ["order_id"],
                                         "forced-replication-method": "FULL_TABLE"}}]}]}


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def append(path, line):
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


def generated(n):
    streams = []
    for i in range(n):
        name = "table_%05d" % i
        props = {"id": {"type": "integer"}, "updated_at": {"type": ["string", "null"]}}
        for j in range(2):
            props["column_%d" % j] = {"type": ["string", "null"]}
        metadata = [{"breadcrumb": [], "metadata": {"inclusion": "available", "table-key-properties": ["id"],
                                                    "valid-replication-keys": ["updated_at"]}}]
        metadata += [{"breadcrumb": ["properties", p], "metadata": {"inclusion": "available"}} for p in props]
        streams.append({"tap_stream_id": "public-" + name, "stream": name, "key_properties": ["id"],
                        "schema": {"type": "object", "properties": props}, "metadata": metadata})
    return {"streams": streams}


def wait_for_go(path):
    append(path, "STARTED %d" % os.getpid())
    while not os.path.exists(path + ".go"):
        time.sleep(0.05)


def main():
    args = sys.argv[1:]
    if "--about" in args:
        out({"name": "catalog-tap", "capabilities": ["catalog", "discover", "about"], "settings": [
            {"name": "file", "kind": "string"}, {"name": "password", "kind": "password"}]})
        return
    config = json.load(open(args[args.index("--config") + 1]))
    append(config.get("pid_file"), str(os.getpid()))
    if "--discover" in args:
        append(config.get("count_file"), "discover %d" % os.getpid())
        if config.get("discover") == "hang":
            sys.stdout.write('{"streams": [')
            sys.stdout.flush()
            sys.stderr.write("DISCOVERING\n")
            sys.stderr.flush()
            time.sleep(3600)
        time.sleep(float(config.get("discover_delay", 0)))
        n = int(config.get("discover_streams", 0))
        out(generated(n) if n else CATALOG)
        return
    selected = {"users", "orders"}
    for flag in ("--catalog", "--properties"):
        if flag in args:
            catalog = json.load(open(args[args.index(flag) + 1]))
            selected = set()
            for s in catalog["streams"]:
                top = [m["metadata"] for m in s.get("metadata", []) if m.get("breadcrumb") == []]
                if top and top[0].get("selected"):
                    selected.add(s["tap_stream_id"])
                if s["tap_stream_id"] == "users":
                    props = [m["breadcrumb"][1] for m in s.get("metadata", [])
                             if len(m.get("breadcrumb", [])) == 2 and m["metadata"].get("selected")]
                    sys.stderr.write("SELECTED " + json.dumps(sorted(props)) + "\n")
    sys.stderr.write("STREAMS " + json.dumps(sorted(selected)) + "\n")
    sys.stderr.flush()
    if "users" in selected and "file" in config:
        try:
            lines = open(config["file"]).read().splitlines()
        except OSError as e:
            sys.stderr.write("connecting with password %s failed\n" % config.get("password", ""))
            sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
            sys.exit(1)
        if config.get("test_wait_file"):
            wait_for_go(config["test_wait_file"])
        out({"type": "SCHEMA", "stream": "users", "schema": CATALOG["streams"][0]["schema"], "key_properties": ["id"]})
        for i, name in enumerate(lines, 1):
            out({"type": "RECORD", "stream": "users", "record": {"id": i, "name": name,
                                                                 "updated_at": "2024-01-0%dT00:00:00" % min(i, 9)}})
        out({"type": "STATE", "value": {"bookmarks": {"users": {"replication_key_value": len(lines)}}}})
    if config.get("hang_after"):
        sys.stderr.write("HANGING\n")
        sys.stderr.flush()
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
