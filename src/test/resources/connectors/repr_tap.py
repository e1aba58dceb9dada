#!/usr/bin/env python3
"""A careless tap for the secret-masking tests: prints its config's secrets the way Python code
does by accident: the config dict logged (repr), each secret's repr, ascii, bytes repr and
unicode_escape, each NUL-separated piece of a value on its own line, an HTTP Basic header of `user`
and `password` when both are set, and finally raises an exception
whose message holds the config's repr, so the traceback (and its last line, the run's error
summary) quotes every secret. Exit code 1 (Python's for an uncaught exception).
"""
import base64
import json
import sys


def main():
    args = sys.argv[1:]
    config = json.load(open(args[args.index("--config") + 1]))
    w = sys.stderr.write
    w("config: %r\n" % (config,))
    for key in sorted(config):
        v = config[key]
        w("REPR %s %r ASCII %s\n" % (key, v, ascii(v)))
        w("BYTES %s %r\n" % (key, v.encode("utf-8")))
        w("ESCAPE %s %r %s\n" % (key, v.encode("unicode_escape"), v.encode("unicode_escape").decode("ascii")))
        for piece in v.split("\0") if "\0" in v else []:
            w("PIECE %s %s\n" % (key, piece))
    if "user" in config and "password" in config:
        basic = base64.b64encode(("%s:%s" % (config["user"], config["password"])).encode("utf-8")).decode("ascii")
        w("request headers: %r\n" % ({"Authorization": "Basic " + basic},))
    sys.stderr.flush()
    raise ValueError("login refused with %r" % (config,))


if __name__ == "__main__":
    main()
