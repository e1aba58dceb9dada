#!/usr/bin/env bash
# Cost of a run (issue 15, goal 2): a 1-record pipeline, a compiled tap (tap-one.c) and target
# (../relay/target-last-state.c), through a direct OS pipe and through a Tapline run, alternated
# ROUNDS times on an otherwise idle service.
#
#   bench/runcost/runcost.sh [ROUNDS]        (default: 30 rounds; the first of each build is a warm-up)
#
# Per round and build:
#   direct      env -i ... tap-one F | target-last-state, wall time
#   post        the POST /api/v1/pipelines/{name}/runs response time (curl's time_total)
#   start       POST sent -> the tap process started (tap-one writes its CLOCK_REALTIME start time;
#               the target, started before the tap, is inside this interval)
#   claim       queued_at -> started_at of the run row
#   run         started_at -> ended_at of the run row (the service's time of the run)
#   terminal    POST sent -> ended_at (the terminal status written; it is committed right after)
#   over        run - direct (the goal: <= 50 ms) ... and start (the goal: < 50 ms)
#   cpu         the service's CPU time (utime + stime of the JVM, 10 ms ticks) from this round's
#               POST to the next round's of the same build: the run, its trigger and what follows
#               its end, plus the idle service's periodic work meanwhile (the same in both builds);
#               on a shared machine a steadier measure than the wall times
# The tap declares catalog, discover and state: the first run discovers its catalog, the later ones
# take it from the catalog cache, and every run after the first gets a state file (meltano-state.md).
#
# BEFORE=<copy of target/quarkus-app of another build> compares two builds: each gets its own
# service (BEFORE on PORT+1, database ${BENCH_DB}_before), both run at once, idle but for the run
# measured, and every round measures both, alternating which goes first. Extra JVM options for
# both: SERVICE_OPTS. Writes $RESULTS/runcost.txt (one line per round and build, then medians and
# p90 per build).
source "$(dirname "$0")/../lib.sh"
need gcc curl psql python3
ROUNDS=${1:-30}
BIN=$RESULTS/bin
mkdir -p "$BIN"
gcc -O2 -o "$BIN/tap-one" "$BENCH_DIR/runcost/tap-one.c"
gcc -O2 -o "$BIN/target-last-state" "$BENCH_DIR/relay/target-last-state.c"
START_FILE=$RESULTS/tap-one.start
out=$RESULTS/runcost.txt
: > "$out"
AFTER_APP=$APP AFTER_DB=$BENCH_DB AFTER_PORT=$PORT
BEFORE_PID=
builds() { if [ -n "${BEFORE:-}" ]; then echo "before after"; else echo "after"; fi; }

stop_all() {
  stop_service
  if [ -n "$BEFORE_PID" ] && kill -0 "$BEFORE_PID" 2>/dev/null; then
    kill "$BEFORE_PID"; wait "$BEFORE_PID" 2>/dev/null || true
  fi
  BEFORE_PID=
}
trap stop_all EXIT

# use BUILD: points APP, BENCH_DB, PORT and BASE at that build's service.
use() {
  if [ "$1" = before ]; then
    APP=$BEFORE BENCH_DB=${AFTER_DB}_before PORT=$((AFTER_PORT + 1)) PID=$BEFORE_PID
  else
    APP=$AFTER_APP BENCH_DB=$AFTER_DB PORT=$AFTER_PORT PID=$SERVICE_PID
  fi
  BASE="http://127.0.0.1:$PORT"
}

# setup BUILD: a fresh database, the service, the two plugins and the pipeline.
setup() {
  use "$1"
  fresh_db
  # shellcheck disable=SC2086
  start_service "runcost-$1" ${SERVICE_OPTS:-} -Dtapline.scheduler.enabled=false
  api -X POST "$BASE/api/v1/plugins/extractors" -o /dev/null -d "{\"name\":\"tap-one\",\"executable\":\"$BIN/tap-one\",
    \"args\":[\"$START_FILE.$1\"],\"capabilities\":[\"catalog\",\"discover\",\"state\"]}"
  api -X POST "$BASE/api/v1/plugins/loaders" -o /dev/null -d "{\"name\":\"target-last-state\",\"executable\":\"$BIN/target-last-state\"}"
  api -X POST "$BASE/api/v1/pipelines" -o /dev/null -d '{"name":"runcost","extractor":"tap-one",
    "loader":"target-last-state","environment":"bench"}'
}

for b in $(builds); do
  setup "$b"
  if [ "$b" = before ]; then BEFORE_PID=$SERVICE_PID; SERVICE_PID=; fi
done

us() { date +%s%6N; }
# ticks PID: the process's utime + stime, in clock ticks (1/100 s).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# direct: one direct pipe, prints its wall time in ms.
direct() {
  local t0; t0=$(us)
  env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" "$BIN/tap-one" "$START_FILE.direct" \
    | env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" "$BIN/target-last-state" > "$RESULTS/runcost.direct-state" 2>/dev/null
  python3 -c "print(round(($(us) - $t0) / 1000, 1))"
}

# one BUILD ROUND: a direct pipe and a Tapline run; appends a line to $out and to per-build files.
one() {
  use "$1"
  local d t0 resp post run tap rest c
  d=$(direct)
  c=$(ticks "$PID")
  if [ -f "$RESULTS/runcost-$1.ticks" ] && [ "$ROUND" -gt 2 ]; then
    echo $(( (c - $(cat "$RESULTS/runcost-$1.ticks")) * 10 )) >> "$RESULTS/runcost-$1.cpu"
  fi
  echo "$c" > "$RESULTS/runcost-$1.ticks"
  rm -f "$START_FILE.$1"
  t0=$(us)
  resp=$(curl -fsS -H 'Content-Type: application/json' -X POST -d '{}' -w '\n%{time_total}' "$BASE/api/v1/pipelines/runcost/runs")
  post=$(tail -1 <<<"$resp")
  run=$(head -1 <<<"$resp" | sed -E 's/.*"id":"([0-9a-f-]{36})".*/\1/')
  # Wait in the database, in one session: each statement of the loop sees the latest commit.
  sql -c "do \$\$ begin
      for i in 1..12000 loop
        exit when exists (select 1 from pipeline_run where id = '$run' and status not in ('QUEUED','RUNNING'));
        perform pg_sleep(0.005);
      end loop; end \$\$"
  tap=$(cat "$START_FILE.$1" 2>/dev/null || echo 0)
  rest=$(sql -F ' ' -c "select status, records_total,
      round(extract(epoch from queued_at) * 1000000), round(extract(epoch from started_at) * 1000000),
      round(extract(epoch from ended_at) * 1000000), coalesce(catalog_source, '-') from pipeline_run where id = '$run'")
  python3 - "$1" "$ROUND" "$d" "$t0" "$post" "$tap" "$rest" "$(load)" "$RESULTS" <<'PY' | tee -a "$out"
import sys
build, rnd, direct, t0, post, tap, rest, load, res = sys.argv[1:]
status, records, queued, started, ended, source = rest.split()
if status != "SUCCEEDED" or records != "1":
    sys.exit(f"run ended {status} with {records} records")
t0, tap, queued, started, ended = (int(float(x)) for x in (t0, tap, queued, started, ended))
v = {
    "direct": float(direct),
    "post": float(post) * 1000,
    "start": (tap - t0) / 1000,
    "claim": (started - queued) / 1000,
    "run": (ended - started) / 1000,
    "terminal": (ended - t0) / 1000,
}
v["over"] = v["run"] - v["direct"]
print(f"round {rnd} {build}: " + " | ".join(f"{k} {x:.1f} ms" for k, x in v.items()) + f" | catalog {source} | load {load}")
if int(rnd) > 1:
    with open(f"{res}/runcost-{build}.tsv", "a") as f:
        f.write("\t".join(f"{v[k]:.2f}" for k in v) + "\n")
PY
}

for b in $(builds); do : > "$RESULTS/runcost-$b.tsv"; : > "$RESULTS/runcost-$b.cpu"; rm -f "$RESULTS/runcost-$b.ticks"; done
for ROUND in $(seq 1 "$ROUNDS"); do
  order=$(builds)
  if [ $((ROUND % 2)) = 0 ] && [ -n "${BEFORE:-}" ]; then order="after before"; fi
  for b in $order; do one "$b"; done
done

{
  echo "rounds=$ROUNDS (round 1 is a warm-up, not counted); load at the end $(load)"
  for b in $(builds); do
    python3 - "$RESULTS/runcost-$b.tsv" "$b" <<'PY'
import math, statistics, sys
keys = ["direct", "post", "start", "claim", "run", "terminal", "over"]
rows = [list(map(float, l.split("\t"))) for l in open(sys.argv[1]) if l.strip()]
def p90(xs):
    xs = sorted(xs); return xs[max(0, math.ceil(0.9 * len(xs)) - 1)]
print(f"{sys.argv[2]} ({len(rows)} rounds): " + " | ".join(
    f"{k} {statistics.median(c):.1f} (p90 {p90(c):.1f})" for k, c in zip(keys, zip(*rows))) + " ms")
cpu = [float(l) for l in open(sys.argv[1][:-4] + ".cpu") if l.strip()]
if cpu:
    print(f"  service CPU per run (rounds 2..n-1): median {statistics.median(cpu):.0f} ms, p90 {p90(cpu):.0f} ms, mean {statistics.mean(cpu):.1f} ms ({len(cpu)} rounds)")
PY
  done
} | tee -a "$out"
