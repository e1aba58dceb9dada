#!/usr/bin/env python3
"""A careless tap for the secret-masking tests: prints its config's `secret` in every form a
connector may print one (raw, line by line, JSON-escaped with and without ensure_ascii,
URL-encoded, base64), the whole config and the `ref` setting JSON-encoded, then fails with an error
message that quotes the secret (so it reaches the run's error summary). Exit code 3.
"""
import base64
import json
import sys
import urllib.parse


def main():
    args = sys.argv[1:]
    config = json.load(open(args[args.index("--config") + 1]))
    v = config.get("secret", "")
    w = sys.stderr.write
    w("RAW " + v + "\n")
    w("CONFIG " + json.dumps(config) + "\n")
    w("CONFIG-UTF8 " + json.dumps(config, ensure_ascii=False) + "\n")
    w("URL " + urllib.parse.quote(v, safe="") + "\n")
    w("URL-PLUS " + urllib.parse.quote_plus(v) + "\n")
    w("B64 " + base64.b64encode(v.encode()).decode() + "\n")
    w("B64-URL " + base64.urlsafe_b64encode(v.encode()).decode().rstrip("=") + "\n")
    w("REF " + json.dumps(config.get("ref")) + "\n")
    w("error: login refused for password " + json.dumps(v) + "\n")
    sys.stderr.flush()
    sys.exit(3)


if __name__ == "__main__":
    main()
