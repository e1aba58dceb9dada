#!/usr/bin/env python3
"""Says "ready" on stdout, then sleeps; the default SIGTERM action ends it."""
import sys
import time

sys.stdout.write("ready\n")
sys.stdout.flush()
while True:
    time.sleep(3600)
