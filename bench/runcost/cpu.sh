#!/usr/bin/env bash
# The service's CPU time per run of the runcost.sh pipeline (1 record, compiled tap and target),
# and by thread: WARM runs to warm up, 10 s idle (the service's periodic work alone), then N runs
# one after the other (each waited for in the database).
#
#   bench/runcost/cpu.sh [N] [WARM]        (defaults: 100 runs after 100 warm-up runs)
#
# Prints the process's CPU (utime + stime, 10 ms ticks, all threads, also those that ended) per run
# and, per live thread group (run-N, executor-thread-N, C2 CompilerThread...), its CPU per run.
# Threads that ended during the runs (relay, state reader, stderr pumps) count in the process total
# only. APP= measures another build. Writes $RESULTS/runcost-cpu.txt.
source "$(dirname "$0")/../lib.sh"
need gcc curl psql
N=${1:-100}
WARM=${2:-100}
BIN=$RESULTS/bin
mkdir -p "$BIN"
gcc -O2 -o "$BIN/tap-one" "$BENCH_DIR/runcost/tap-one.c"
gcc -O2 -o "$BIN/target-last-state" "$BENCH_DIR/relay/target-last-state.c"
fresh_db
# shellcheck disable=SC2086
start_service runcost-cpu ${SERVICE_OPTS:-} -Dtapline.scheduler.enabled=false
api -X POST "$BASE/api/v1/plugins/extractors" -o /dev/null -d "{\"name\":\"tap-one\",\"executable\":\"$BIN/tap-one\",
  \"args\":[\"$RESULTS/tap-one.start.cpu\"],\"capabilities\":[\"catalog\",\"discover\",\"state\"]}"
api -X POST "$BASE/api/v1/plugins/loaders" -o /dev/null -d "{\"name\":\"target-last-state\",\"executable\":\"$BIN/target-last-state\"}"
api -X POST "$BASE/api/v1/pipelines" -o /dev/null -d '{"name":"runcost","extractor":"tap-one",
  "loader":"target-last-state","environment":"bench"}'

# threads: "group ticks" per live thread group (the thread name without its trailing number).
threads() {
  for t in /proc/"$SERVICE_PID"/task/*; do
    awk -v n="$(tr ' ' '_' < "$t/comm")" '{ print n, $14 + $15 }' "$t/stat" 2>/dev/null
  done | sed -E 's/[-_#]?[0-9]+ / /' | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort
}
ticks() { awk '{ print $14 + $15 }' "/proc/$SERVICE_PID/stat"; }
runs() {
  local i run
  for i in $(seq 1 "$1"); do
    run=$(api -X POST "$BASE/api/v1/pipelines/runcost/runs" -d '{}' | sed -E 's/.*"id":"([0-9a-f-]{36})".*/\1/')
    sql -c "do \$\$ begin for i in 1..12000 loop
        exit when exists (select 1 from pipeline_run where id = '$run' and status not in ('QUEUED','RUNNING'));
        perform pg_sleep(0.005); end loop; end \$\$"
  done
}
runs "$WARM"
p0=$(ticks); t0=$(now_ms)
sleep 10
p1=$(ticks); t1=$(now_ms); threads > "$RESULTS/runcost-threads.before"
runs "$N"
p2=$(ticks); t2=$(now_ms); threads > "$RESULTS/runcost-threads.after"
out=$RESULTS/runcost-cpu.txt
{
  echo "N=$N after $WARM warm-up runs; load $(load)"
  echo "process CPU: $(( (p2 - p1) * 10 / N )) ms per run ($(( (p2 - p1) * 10 )) ms for $N runs in $(( t2 - t1 )) ms);" \
    "idle: $(( (p1 - p0) * 10 )) ms in $(( t1 - t0 )) ms"
  join -a2 -e0 -o 0,1.2,2.2 "$RESULTS/runcost-threads.before" "$RESULTS/runcost-threads.after" \
    | awk -v n="$N" '$3 - $2 > 0 { printf "  %-20s %6.1f ms per run\n", $1, ($3 - $2) * 10 / n }'
} | tee "$out"
