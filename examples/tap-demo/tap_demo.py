#!/usr/bin/env python3
"""tap-demo: a small incremental Singer tap over CSV files (Python standard library only).

Config (--config FILE):
  {"streams": [{"name": "people", "path": "/abs/people.csv",
                "key_properties": ["id"], "replication_key": "updated_at"}]}

Capabilities: discover, catalog, state.
  --discover          print the catalog and exit
  --catalog FILE      sync only the streams selected in the catalog (metadata breadcrumb [] "selected")
  --state FILE        resume after the bookmarks in FILE; only rows whose replication key is
                      greater than the bookmark are emitted

Messages go to stdout, one JSON object per line; logs go to stderr. Values are strings except
columns named "id" or ending in "_id", which are integers when they parse as such.
"""
import argparse
import csv
import json
import sys


def log(msg):
    print("INFO " + msg, file=sys.stderr, flush=True)


def emit(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")


def convert(column, value):
    if column == "id" or column.endswith("_id"):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def read_header(path):
    with open(path, newline="", encoding="utf-8") as f:
        return next(csv.reader(f), [])


def schema_for(stream):
    props = {}
    for column in read_header(stream["path"]):
        kind = "integer" if column == "id" or column.endswith("_id") else "string"
        props[column] = {"type": ["null", kind]}
    return {"type": "object", "properties": props}


def catalog(config):
    streams = []
    for s in config["streams"]:
        rk = s.get("replication_key")
        streams.append({
            "tap_stream_id": s["name"],
            "stream": s["name"],
            "schema": schema_for(s),
            "key_properties": s.get("key_properties", []),
            "replication_key": rk,
            "replication_method": "INCREMENTAL" if rk else "FULL_TABLE",
            "metadata": [{"breadcrumb": [], "metadata": {
                "selected": True,
                "table-key-properties": s.get("key_properties", []),
                "valid-replication-keys": [rk] if rk else [],
                "forced-replication-method": "INCREMENTAL" if rk else "FULL_TABLE"}}],
        })
    return {"streams": streams}


def selected_names(catalog_doc):
    names = set()
    for entry in catalog_doc.get("streams", []):
        for m in entry.get("metadata", []):
            if m.get("breadcrumb") == [] and m.get("metadata", {}).get("selected"):
                names.add(entry.get("tap_stream_id") or entry.get("stream"))
    return names


def sync(config, state, selected):
    bookmarks = state.setdefault("bookmarks", {})
    for s in config["streams"]:
        name = s["name"]
        if selected is not None and name not in selected:
            log("skipping unselected stream " + name)
            continue
        rk = s.get("replication_key")
        start = bookmarks.get(name, {}).get("replication_key_value") if rk else None
        state["currently_syncing"] = name
        emit({"type": "SCHEMA", "stream": name, "schema": schema_for(s),
              "key_properties": s.get("key_properties", []),
              **({"bookmark_properties": [rk]} if rk else {})})
        count = 0
        high = start
        with open(s["path"], newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                value = row.get(rk) if rk else None
                if rk and start is not None and value is not None and value <= start:
                    continue
                emit({"type": "RECORD", "stream": name,
                      "record": {k: convert(k, v) for k, v in row.items()}})
                count += 1
                if rk and value is not None and (high is None or value > high):
                    high = value
        if rk and high is not None:
            bookmarks[name] = {"replication_key": rk, "replication_key_value": high}
        state["currently_syncing"] = None
        emit({"type": "STATE", "value": state})
        log("stream %s: %d record(s) since %s" % (name, count, start))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(prog="tap-demo")
    parser.add_argument("--config", required=True)
    parser.add_argument("--state")
    parser.add_argument("--catalog")
    parser.add_argument("--properties")
    parser.add_argument("--discover", action="store_true")
    args = parser.parse_args()
    with open(args.config, encoding="utf-8") as f:
        config = json.load(f)
    if args.discover:
        print(json.dumps(catalog(config), indent=2))
        return
    state = {}
    if args.state:
        with open(args.state, encoding="utf-8") as f:
            state = json.load(f) or {}
        log("resuming from state " + json.dumps(state.get("bookmarks", {})))
    selected = None
    catalog_file = args.catalog or args.properties
    if catalog_file:
        with open(catalog_file, encoding="utf-8") as f:
            selected = selected_names(json.load(f))
    sync(config, state, selected)


if __name__ == "__main__":
    main()
