# Shared helpers of the bench scripts; sourced, not run.
#
# Needs: curl, psql (postgresql-client), python3 (for medians and percentiles), gcc (relay
# connectors), a built fast-jar (./mvnw -B package -DskipTests) and a PostgreSQL server that the
# user postgres reaches without a password (the machine's local one at 127.0.0.1:5432 here).
# Every script works on its own database (BENCH_DB, default tapline_bench), dropped and created
# afresh, never on the tests' or anybody else's.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
RESULTS=${RESULTS:-$BENCH_DIR/results}
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
BENCH_DB=${BENCH_DB:-tapline_bench}
JAVA=${JAVA:-java}
PORT=${PORT:-8085}
# The fast-jar to run; APP=<copy of target/quarkus-app> benchmarks a build while the tree changes.
APP=${APP:-$ROOT/target/quarkus-app}
BASE="http://127.0.0.1:$PORT"
export PGHOST PGPORT PGUSER
mkdir -p "$RESULTS"

need() {
  for c in "$@"; do
    command -v "$c" >/dev/null || { echo "missing: $c (see bench/README.md, Requirements)" >&2; exit 2; }
  done
}

# psql on the bench database, quiet, unaligned, tuples only.
# Tapline's tables live in the schema tapline.
sql() { PGOPTIONS="-c search_path=tapline" psql -X -q -v ON_ERROR_STOP=1 -At -d "$BENCH_DB" "$@"; }

# load: the 1-minute load average, printed beside results (the machine is shared).
load() { cut -d' ' -f1 /proc/loadavg; }

fresh_db() {
  psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "drop database if exists $BENCH_DB with (force)" \
    -c "create database $BENCH_DB"
}

now_ms() { date +%s%3N; }

# start_service NAME [extra JVM/system properties...]: starts the fast-jar on the bench database
# with the scheduler off unless the caller turns it on, and without bearer-token checks (the
# numbers were taken before authentication existed; BENCH_SECURITY=true keeps it on, and then the
# HTTP clients need a token), waits until /q/health/ready answers 200,
# and sets SERVICE_PID and READY_MS (launch to ready, in ms). The log goes to $RESULTS/NAME.log.
start_service() {
  local name=$1; shift
  local jar=$APP/quarkus-run.jar
  [ -f "$jar" ] || { echo "build first: ./mvnw -B package -DskipTests" >&2; exit 2; }
  local work=$RESULTS/work-$name
  rm -rf "$work"; mkdir -p "$work"
  local t0; t0=$(now_ms)
  (cd "$work" && exec "$JAVA" "$@" \
      -Dquarkus.http.port="$PORT" \
      -Dquarkus.datasource.jdbc.url="jdbc:postgresql://$PGHOST:$PGPORT/$BENCH_DB" \
      -Dquarkus.datasource.username="$PGUSER" -Dquarkus.datasource.password=unused \
      -Dquarkus.log.console.level=INFO \
      -Dtapline.security.enabled="${BENCH_SECURITY:-false}" \
      -jar "$jar" >"$RESULTS/$name.log" 2>&1) &
  SERVICE_PID=$!
  # the subshell execs java, so $! is the JVM's pid
  until curl -fs -o /dev/null "$BASE/q/health/ready"; do
    kill -0 "$SERVICE_PID" 2>/dev/null || { echo "service died; see $RESULTS/$name.log" >&2; tail -20 "$RESULTS/$name.log" >&2; exit 1; }
    sleep 0.02
  done
  READY_MS=$(( $(now_ms) - t0 ))
}

stop_service() {
  if [ -n "${SERVICE_PID:-}" ] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill "$SERVICE_PID"
    wait "$SERVICE_PID" 2>/dev/null || true
  fi
  SERVICE_PID=
}

# rss_kb PID FIELD: VmRSS or VmHWM of a process, in KiB.
rss_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

# heap_used_kb PID: used Java heap after a full GC (jcmd GC.run, then GC.heap_info).
heap_used_kb() {
  jcmd "$1" GC.run >/dev/null
  jcmd "$1" GC.heap_info | awk '/garbage-first heap|Shenandoah|def new generation|PSYoungGen/ && /used/ {
      for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i+1); sub(/K,?/, "", v); print v; exit } }'
}

# median VALUES...: the median (mean of the middle two for an even count).
median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

# percentile P VALUES-FILE: the P-th percentile (nearest rank) of one number per line.
percentile() {
  python3 -c 'import math,sys; v=sorted(float(x) for x in open(sys.argv[2]) if x.strip()); p=float(sys.argv[1]);
print(v[max(0, math.ceil(p/100*len(v))-1)] if v else "nan")' "$1" "$2"
}

api() { curl -fsS -H 'Content-Type: application/json' "$@"; }

trap 'stop_service' EXIT
