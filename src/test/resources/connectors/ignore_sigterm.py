#!/usr/bin/env python3
"""Ignores SIGTERM, says "ready" on stdout, then sleeps until killed."""
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdout.write("ready\n")
sys.stdout.flush()
while True:
    time.sleep(3600)
