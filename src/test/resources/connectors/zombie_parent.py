#!/usr/bin/env python3
"""Leaves an exited, unreaped child (a zombie): forks a child that exits at once, waits for that
exit without reaping it, announces "zombie <pid>" on stdout, then sleeps until killed."""
import os
import sys
import time

sys.stdout.flush()
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
sys.stdout.write("zombie %d\n" % pid)
sys.stdout.flush()
while True:
    time.sleep(3600)
