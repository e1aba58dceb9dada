#!/usr/bin/env python3
"""A process family for termination tests.

root (this process) forks a child that ignores SIGTERM; the child forks a grandchild that
restores the default SIGTERM action and sleeps. Each announces "<role> <pid>" on stdout once it
is ready, then sleeps until killed.
"""
import os
import signal
import sys
import time


def announce(role):
    sys.stdout.write("%s %d\n" % (role, os.getpid()))
    sys.stdout.flush()


def sleep_forever():
    while True:
        time.sleep(3600)


sys.stdout.flush()
if os.fork() == 0:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        announce("grandchild")
        sleep_forever()
    announce("child")
    sleep_forever()
announce("root")
sleep_forever()
