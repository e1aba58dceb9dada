#!/usr/bin/env python3
"""A stand-in for the `meltano` CLI (the real one cannot be installed here), for the Meltano-CLI
executor tests. Standard library only.

Accepts `--environment ENV run [--state-id-suffix S] [--full-refresh] [--state-strategy X] BLOCKS...`,
checks that it runs in MELTANO_PROJECT_ROOT (which holds meltano.yml) with a file:// state backend in
MELTANO_STATE_BACKEND_URI, then does what Meltano's local-filesystem state backend does
(meltano-state.md section 1d): reads <root>/<state_id>/state.json, waiting while a fresh lock file
is held by another writer, logs a few lines, and writes a new state.json under the lock, with
json.dumps({"completed": ..., "partial": {}}) and Python's default separators.

The state ID is <env>:<first block>-to-<last extract-load block>[:<suffix>], or FAKE_MELTANO_JOB_STATE_ID
when a single job name is given. The bookmark {"items": {"id": N}} advances by FAKE_MELTANO_ADVANCE
(default 3). FAKE_MELTANO_RECORD names a file that receives what was checked, read and written, as JSON.

It logs as Meltano 4.2.2 does (`<time> [<level>] <name> <message>`, the name being meltano's or that
of the plugin whose stderr it passes on; colours included even though stderr is a pipe: the service
must set NO_COLOR and strip escape sequences), passes the extractor's and the loader's SDK METRIC
lines through under their names (3 records of stream "items" each, no producer marker), and fails as
Meltano 4.2.2 does (fixtures/singer/meltano-run6.log): the error at error level, "Block run
completed" at error level, "Run completed", exit 1.
FAKE_MELTANO_MODE:
  fail          writes the state, then fails like a crashed extractor (exit 1, "Extractor failed")
  fail-loader   writes the state, then "Loader failed"
  fail-secret   writes the state, then an error line holding $FAKE_MELTANO_SECRET
  fail-mapper   a mapper's traceback under its name, then Meltano's "Unexpected completion sequence in
                ExtractLoadBlock set. Intermediate block (likely a mapper) failed."
  cannot-start  "Cannot start plugin <first block>: Executable ... could not be found" (exit 1, no state)
  hang          logs "READY" (after writing its pid to FAKE_MELTANO_PID_FILE) and sleeps;
                with FAKE_MELTANO_IGNORE_SIGTERM=1 it ignores SIGTERM
"""
import datetime
import json
import os
import signal
import sys
import time
from urllib.parse import urlparse

LOCK_TIMEOUT = 10.0


LEVEL_COLOURS = {"debug": "\x1b[32m", "info": "\x1b[32m", "warning": "\x1b[33m", "error": "\x1b[31m"}


def log(level, message, name="meltano"):
    """One line as Meltano 4.2.2 writes it (structlog's console renderer: time, level, the name of
    meltano or of the plugin whose stderr it passes on, the message), with colours."""
    ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    sys.stderr.write("\x1b[2m%s\x1b[0m [%s\x1b[1m%-9s\x1b[0m] \x1b[34m%-12s\x1b[0m %s\n"
                     % (ts, LEVEL_COLOURS.get(level, ""), level, name, message))
    sys.stderr.flush()


def fail(code, message):
    log("error", message)
    sys.exit(code)


def block_failed(error):
    """What Meltano 4.2.2 prints when a block of `meltano run` fails (fixtures/singer/meltano-run6.log), then exits 1."""
    log("error", error)
    log("error", "Block run completed")
    log("info", "Run completed")
    sys.exit(1)


def wait_for_lock(lock):
    deadline = time.time() + 2 * LOCK_TIMEOUT
    while os.path.exists(lock) and time.time() < deadline:
        try:
            with open(lock) as f:
                held = float(f.read().strip())
        except (OSError, ValueError):
            return
        if held < time.time() - LOCK_TIMEOUT:
            os.remove(lock)
            return
        time.sleep(0.05)


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] != "--environment" or args[2] != "run":
        fail(2, "usage: meltano --environment ENV run [options] BLOCKS... (got %r)" % (args,))
    env = args[1]
    rest = args[3:]
    suffix = None
    full_refresh = False
    strategy = "auto"
    blocks = []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--state-id-suffix":
            suffix = rest[i + 1]
            i += 2
        elif a == "--state-strategy":
            strategy = rest[i + 1]
            i += 2
        elif a == "--full-refresh":
            full_refresh = True
            i += 1
        elif a.startswith("-"):
            fail(2, "unknown option " + a)
        else:
            blocks.append(a)
            i += 1
    if not blocks:
        fail(2, "no blocks")

    uri = os.environ.get("MELTANO_STATE_BACKEND_URI", "")
    root_env = os.environ.get("MELTANO_PROJECT_ROOT", "")
    if not uri.startswith("file://"):
        fail(3, "MELTANO_STATE_BACKEND_URI is not a file:// URI: %r" % uri)
    if os.path.realpath(root_env) != os.path.realpath(os.getcwd()):
        fail(3, "MELTANO_PROJECT_ROOT %r is not the working directory %r" % (root_env, os.getcwd()))
    if not os.path.isfile("meltano.yml"):
        fail(3, "no meltano.yml in " + os.getcwd())
    log("info", "Environment '%s' is active" % env)

    if len(blocks) == 1:
        state_id = os.environ["FAKE_MELTANO_JOB_STATE_ID"]
    else:
        el = [b for b in blocks if ":" not in b]
        state_id = ":".join(p for p in [env, el[0] + "-to-" + el[-1], suffix] if p)
    root = urlparse(uri).path
    directory = os.path.join(root, state_id)
    path = os.path.join(directory, "state.json")
    lock = os.path.join(directory, "lock")

    mode = os.environ.get("FAKE_MELTANO_MODE", "")
    if mode == "cannot-start":
        sys.stderr.write("\x1b[31mCannot start plugin %s: Executable '%s' could not be found. Extractor '%s' may not"
                         " have been installed yet using `meltano install extractor %s`, or the executable name may be"
                         " incorrect.\x1b[0m\n" % (blocks[0], blocks[0], blocks[0], blocks[0]))
        sys.exit(1)
    if mode == "hang":
        if os.environ.get("FAKE_MELTANO_IGNORE_SIGTERM") == "1":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        pid_file = os.environ.get("FAKE_MELTANO_PID_FILE")
        if pid_file:
            with open(pid_file, "a") as f:
                f.write(str(os.getpid()) + "\n")
        log("info", "READY")
        time.sleep(3600)
    log("info", "Running job with name '%s'" % state_id)
    log("info", "Reading state from Local Filesystem")
    wait_for_lock(lock)
    read_text = None
    previous = 0
    if os.path.exists(path):
        with open(path) as f:
            read_text = f.read()
        state = json.loads(read_text)
        merged = dict(state.get("completed") or {})
        merged.update(state.get("partial") or {})
        previous = merged.get("singer_state", {}).get("bookmarks", {}).get("items", {}).get("id", 0)
        log("info", "stand-in read bookmark %s" % previous)
    else:
        log("warning", "No state was found, complete import.")
    print("stand-in stdout line")
    sys.stdout.flush()
    tap = blocks[0]
    for plugin in (tap, blocks[-1]):
        # the SDK's record_count under each plugin's name; the loader counts the same records
        log("info", "METRIC: %s" % json.dumps({"type": "counter", "metric": "record_count", "value": 3,
                                               "tags": {"stream": "items", "pid": os.getpid()}},
                                              separators=(",", ":")), name=plugin)

    new = {"completed": {"singer_state": {"bookmarks": {"items": {"id": previous + int(os.environ.get(
        "FAKE_MELTANO_ADVANCE", "3"))}}}}, "partial": {}}
    written = json.dumps(new)
    os.makedirs(directory, exist_ok=True)
    wait_for_lock(lock)
    with open(lock, "w") as f:
        f.write(str(datetime.datetime.now(datetime.timezone.utc).timestamp()))
    try:
        with open(path, "w+") as f:
            f.write(written)
    finally:
        os.remove(lock)
    log("info", "Writing state to Local Filesystem")
    log("info", "Incremental state has been updated at %s." % datetime.datetime.now(datetime.timezone.utc))

    record = os.environ.get("FAKE_MELTANO_RECORD")
    if record:
        with open(record, "w") as f:
            json.dump({"argv": args, "cwd": os.getcwd(), "state_backend_uri": uri, "project_root": root_env,
                       "state_id": state_id, "read": read_text, "written": written,
                       "full_refresh": full_refresh, "strategy": strategy,
                       "no_color": os.environ.get("NO_COLOR")}, f)

    if mode == "fail":
        block_failed("Extractor failed")
    if mode == "fail-loader":
        block_failed("Loader failed")
    if mode == "fail-secret":
        fail(1, "Could not connect with password %s" % os.environ.get("FAKE_MELTANO_SECRET", ""))
    if mode == "fail-mapper":
        log("error", "Traceback (most recent call last):", name=blocks[1] if len(blocks) > 2 else tap)
        block_failed("Unexpected completion sequence in ExtractLoadBlock set. Intermediate block (likely a mapper)"
                     " failed.")
    log("info", "Block run completed")
    log("info", "Run completed")


if __name__ == "__main__":
    main()
