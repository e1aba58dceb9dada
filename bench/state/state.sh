#!/usr/bin/env bash
# State API under concurrent load against the same SQL run by pgbench on the same database.
#
#   bench/state/state.sh [ROUNDS] [SECONDS]        (defaults: 5 rounds of 30 s each; WARMUP=15 for longer warm-ups)
#
# Each round runs, one after the other: wrk GET, pgbench GET, wrk PUT, pgbench PUT, each with
# 4 threads and 32 connections (pgbench -M prepared, the way the service's JDBC driver sends
# them). 100 state IDs with 4 stream bookmarks each are seeded first; requests pick one at random.
# Prints requests/s, p50 and p99 per run and the medians over the rounds, and the ratios
# API / SQL. Writes $RESULTS/state.txt.
#
# Needs: wrk (Debian package wrk), pgbench (postgresql-client), curl, psql, python3.
source "$(dirname "$0")/../lib.sh"
need wrk pgbench curl psql python3
ROUNDS=${1:-5}
SECONDS_PER_RUN=${2:-30}
THREADS=4
CONNECTIONS=32
HERE=$BENCH_DIR/state
out=$RESULTS/state.txt

fresh_db
# shellcheck disable=SC2086
start_service state ${SERVICE_OPTS:-} -Dtapline.scheduler.enabled=false
sql -c "insert into singer_state (state_id, completed, partial, version, updated_at)
  select 'bench:tap-' || n || '-to-target',
    '{\"singer_state\": {\"bookmarks\": {\"orders\": {\"replication_key\": \"updated_at\", \"replication_key_value\": \"2026-11-29T16:00:00Z\"}, \"customers\": {\"replication_key\": \"updated_at\", \"replication_key_value\": \"2026-11-29T16:00:00Z\"}, \"order_items\": {\"replication_key\": \"updated_at\", \"replication_key_value\": \"2026-11-29T16:00:00Z\"}, \"events\": {\"replication_key\": \"updated_at\", \"replication_key_value\": \"2026-11-29T16:00:00Z\"}}}}',
    '{}', 1, now() from generate_series(1, 100) n"
curl -fsS "$BASE/api/v1/states/bench:tap-1-to-target/bookmarks/orders" >/dev/null

# wrk_run SCRIPT: prints "rps p50_ms p99_ms".
wrk_run() {
  wrk -t$THREADS -c$CONNECTIONS -d"${SECONDS_PER_RUN}s" --latency -s "$HERE/$1" "$BASE" > "$RESULTS/wrk.out" 2> "$RESULTS/wrk.err"
  if [ -s "$RESULTS/wrk.err" ]; then echo "wrk reported errors:" >&2; sort "$RESULTS/wrk.err" | uniq -c | head >&2; exit 1; fi
  grep -q 'Non-2xx' "$RESULTS/wrk.out" && { cat "$RESULTS/wrk.out" >&2; exit 1; }
  python3 - "$RESULTS/wrk.out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
def ms(v, unit): return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
p = {k: ms(v, u) for k, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", t, re.M)}
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
print(f"{rps:.0f} {p['50']:.2f} {p['99']:.2f}")
PY
}

# pgbench_run SCRIPT: prints "tps p50_ms p99_ms" (latencies from the per-transaction log).
pgbench_run() {
  local dir; dir=$(mktemp -d)
  (cd "$dir" && pgbench -n -M prepared -c $CONNECTIONS -j $THREADS -T "$SECONDS_PER_RUN" --log -f "$HERE/$1" "$BENCH_DB" > out.txt 2>&1) \
    || { cat "$dir/out.txt" >&2; exit 1; }
  grep -q 'number of failed transactions: 0 ' "$dir/out.txt" || { cat "$dir/out.txt" >&2; exit 1; }
  python3 - "$dir" <<'PY'
import glob, math, re, sys
d = sys.argv[1]
lat = sorted(int(l.split()[2]) / 1000 for f in glob.glob(d + "/pgbench_log.*") for l in open(f))
tps = float(re.search(r"tps = ([\d.]+) \(without initial", open(d + "/out.txt").read()).group(1))
q = lambda p: lat[max(0, math.ceil(p / 100 * len(lat)) - 1)]
print(f"{tps:.0f} {q(50):.2f} {q(99):.2f}")
PY
  rm -rf "$dir"
}

# A warm-up of the JIT and both connection pools (WARMUP seconds per operation, default 5; on a
# loaded machine 5 s leave round 1 to the JIT).
SECONDS_PER_RUN=${WARMUP:-5} wrk_run get.lua >/dev/null
SECONDS_PER_RUN=${WARMUP:-5} wrk_run put.lua >/dev/null

: > "$out"
declare -A col
for round in $(seq 1 "$ROUNDS"); do
  for op in get put; do
    read -r a_rps a_p50 a_p99 < <(wrk_run $op.lua)
    read -r s_rps s_p50 s_p99 < <(pgbench_run $op.sql)
    col[$op.a_rps]+=" $a_rps"; col[$op.a_p50]+=" $a_p50"; col[$op.a_p99]+=" $a_p99"
    col[$op.s_rps]+=" $s_rps"; col[$op.s_p50]+=" $s_p50"; col[$op.s_p99]+=" $s_p99"
    col[$op.ratio]+=" $(python3 -c "print(round($s_rps / $a_rps, 2))")"
    echo "round $round $op: API $a_rps req/s p50 $a_p50 ms p99 $a_p99 ms | SQL $s_rps tx/s p50 $s_p50 ms p99 $s_p99 ms | SQL/API $(python3 -c "print(round($s_rps / $a_rps, 2))") | load $(load)" | tee -a "$out"
  done
done
for op in get put; do
  # shellcheck disable=SC2086
  echo "median $op: API $(median ${col[$op.a_rps]}) req/s p50 $(median ${col[$op.a_p50]}) ms p99 $(median ${col[$op.a_p99]}) ms | SQL $(median ${col[$op.s_rps]}) tx/s p50 $(median ${col[$op.s_p50]}) ms p99 $(median ${col[$op.s_p99]}) ms | SQL/API throughput $(median ${col[$op.ratio]})" | tee -a "$out"
done
echo "versions written: $(sql -c 'select count(*) from singer_state_version')" | tee -a "$out"
