#!/usr/bin/env python3
"""tap_gen.py: the same messages as tap-gen.c, written the way a Python Singer tap writes them
(a dict per record, json.dumps, one print per message), to show how the relay compares with a
tap of realistic speed.

    tap_gen.py [N] [--config FILE] [--state FILE] ...

Singer options are accepted and ignored. Standard library only.
"""
import json
import sys

STREAMS = ["orders", "customers", "order_items", "events"]
STATUS = ["pending", "paid", "shipped", "delivered", "returned"]
CITY = ["Berlin", "Lisboa", "M\u00fcnchen", "Paris", "Z\u00fcrich", "Oslo"]


def ts(s):
    day, sec = s // 86400 % 336, s % 86400
    return "2024-%02d-%02dT%02d:%02d:%02dZ" % (day // 28 + 1, day % 28 + 1, sec // 3600, sec // 60 % 60, sec % 60)


def main():
    args, n, i = sys.argv[1:], 1_000_000, 0
    while i < len(args):
        if args[i].startswith("-"):
            i += 1 if args[i] in ("--discover", "--about") else 2
            continue
        n = int(args[i])
        i += 1
    out = sys.stdout
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    for s in STREAMS:
        out.write(dumps({"type": "SCHEMA", "stream": s, "schema": {"type": "object", "properties": {
            "id": {"type": "integer"}, "updated_at": {"type": "string", "format": "date-time"}}},
            "key_properties": ["id"], "bookmark_properties": ["updated_at"]}) + "\n")
    last = [0, 0, 0, 0]
    for i in range(n):
        k, rid, t = i & 3, i // 4 + 1, 1_000_000 + i * 7
        last[k] = t
        if k == 0:
            rec = {"id": rid, "customer_id": rid * 7919 % 100000, "status": STATUS[i % 5],
                   "amount": rid * 31 % 10000 + rid % 100 / 100, "currency": "EUR", "items": rid % 9 + 1,
                   "note": "leave at the door", "created_at": ts(t - 3600), "updated_at": ts(t)}
        elif k == 1:
            rec = {"id": rid, "name": "Customer %d" % rid, "email": "customer%d@example.com" % rid,
                   "city": CITY[i % 6], "vip": rid % 3 == 0, "score": -1.5e-3, "created_at": ts(t - 86400),
                   "updated_at": ts(t)}
        elif k == 2:
            rec = {"id": rid, "order_id": rid // 3 + 1, "sku": "SKU-%d" % (rid * 131 % 1000000),
                   "quantity": rid % 5 + 1, "unit_price": rid * 17 % 500 + rid * 7 % 100 / 100,
                   "tags": ["a", "b", None], "updated_at": ts(t)}
        else:
            rec = {"id": rid, "session": "s-%d" % (rid * 2654435761 % 4294967296), "kind": "page_view",
                   "path": "/products/%d" % (rid % 5000), "props": {"ref": "search", "ms": rid % 3000},
                   "updated_at": ts(t)}
        out.write(dumps({"type": "RECORD", "stream": STREAMS[k], "record": rec,
                         "time_extracted": "2026-11-29T16:00:00.000000Z"}) + "\n")
        if (i + 1) % 10000 == 0 or i + 1 == n:
            out.write(dumps({"type": "STATE", "value": {"bookmarks": {
                s: {"replication_key": "updated_at", "replication_key_value": ts(last[j])}
                for j, s in enumerate(STREAMS)}}}) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
