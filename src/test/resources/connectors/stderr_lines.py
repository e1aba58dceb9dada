#!/usr/bin/env python3
"""Writes test lines to stderr, one "out" line to stdout, and exits with the code given as argument.

stderr gets: a plain line, a CRLF line, a line with invalid UTF-8 bytes, an empty line, a line
of N bytes (N = second argument, default 0: none) made of "x" with a multi-byte character at the
end, the line "after", and a final line without newline.
"""
import sys

code = int(sys.argv[1]) if len(sys.argv) > 1 else 0
huge = int(sys.argv[2]) if len(sys.argv) > 2 else 0
err = sys.stderr.buffer
err.write(b"hello from stderr\n")
err.write(b"windows line\r\n")
err.write(b"bad \xff\xfe bytes\n")
err.write(b"\n")
if huge:
    err.write(b"x" * (huge - 2) + "\u00e9".encode("utf-8") + b"\n")
err.write(b"after\n")
err.write(b"no newline at the end")
err.flush()
sys.stdout.write("out\n")
sys.stdout.flush()
sys.exit(code)
