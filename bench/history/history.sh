#!/usr/bin/env bash
# Run history with 1,000,000 runs: latency of a pipeline's first page and of a deep page through
# the API (and EXPLAIN (ANALYZE, BUFFERS) of the SQL), with and without the V40 index on
# (pipeline_name, id DESC); then run retention pruning those runs in batches while a small
# pipeline is triggered over and over, comparing its trigger latency before and during pruning.
#
#   bench/history/history.sh [SECONDS]      (default: 10 s of wrk per latency measurement)
#
# The runs: 4 pipelines taking turns (hist-a .. hist-d, 249,750 runs each) and one rare pipeline
# (hist-rare, every 1,000th run), one run every 10 s from 206 to 91 days ago, UUIDv7 ids in time
# order, ~600-byte rows. Latencies are wrk's with one connection (p50, p99 over SECONDS).
# Writes $RESULTS/history.txt and bench/history/explain-*.txt.
# Needs: wrk, curl, psql, python3, gcc.
source "$(dirname "$0")/../lib.sh"
need wrk curl psql python3 gcc
SECS=${1:-10}
out=$RESULTS/history.txt
: > "$out"
BIN=$RESULTS/bin
mkdir -p "$BIN"
gcc -O2 -o "$BIN/tap-gen" "$BENCH_DIR/relay/tap-gen.c"
gcc -O2 -o "$BIN/target-last-state" "$BENCH_DIR/relay/target-last-state.c"

fresh_db
start_service history-migrate -Dtapline.scheduler.enabled=false
stop_service
t0=$(now_ms)
sql <<'SQL'
insert into pipeline_run (id, pipeline_name, state_id, trigger, status, queued_at, started_at, ended_at,
    exit_codes, stream_counts, records_total, bytes_total, state_lines, log_tail, log_bytes, created_by)
select (lpad(to_hex((extract(epoch from t) * 1000)::bigint), 12, '0') || '7' || lpad(to_hex(g % 4096), 3, '0')
        || '8' || substr(md5(g::text), 1, 15))::uuid,
       p, 'bench:' || p, 'SCHEDULE', case when g % 50 = 0 then 'FAILED' else 'SUCCEEDED' end,
       t, t + interval '1 second', t + interval '95 seconds',
       '{"extractor": 0, "loader": 0}',
       '{"streams": {"orders": {"records": 1200, "schemas": 1, "activateVersions": 0, "batches": 0, "bytes": 301234}}, "states": 12, "lines": 1213}',
       1200, 301234, 12,
       repeat('2026-01-01T00:00:00Z extractor | INFO Synced 1200 records' || chr(10), 6), 360, 'scheduler'
from (select g, now() - interval '91 days' - (1000000 - g) * interval '10 seconds' as t,
             case when g % 1000 = 0 then 'hist-rare' else 'hist-' || chr(97 + g % 4) end as p
      from generate_series(1, 1000000) g) s;
vacuum analyze pipeline_run;
SQL
echo "inserted 1,000,000 runs in $(( ($(now_ms) - t0) / 1000 )) s; table + indexes: $(sql -c "select pg_size_pretty(pg_total_relation_size('pipeline_run'))")" | tee -a "$out"

start_service history -Dtapline.scheduler.enabled=false

# A cursor as the API makes it: base64url("v1:" + the last id of the previous page).
cursor() { printf 'v1:%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
deep_id=$(sql -c "select id from pipeline_run where pipeline_name = 'hist-a' order by id desc offset 200000 limit 1")
rare_deep_id=$(sql -c "select id from pipeline_run where pipeline_name = 'hist-rare' order by id desc offset 800 limit 1")

latency() {  # latency LABEL URL-PATH: p50/p99 over SECS with one connection, after a 3 s warm-up
  wrk -t1 -c1 -d3s "$BASE$2" > /dev/null
  wrk -t1 -c1 -d"${SECS}s" --latency "$BASE$2" > "$RESULTS/wrk.out"
  grep -q 'Non-2xx' "$RESULTS/wrk.out" && { cat "$RESULTS/wrk.out" >&2; exit 1; }
  python3 - "$RESULTS/wrk.out" "$1" <<'PY' | tee -a "$out"
import re, sys
t = open(sys.argv[1]).read()
def ms(v, unit): return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
p = {k: ms(v, u) for k, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", t, re.M)}
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
print(f"  {sys.argv[2]}: p50 {p['50']:.2f} ms, p99 {p['99']:.2f} ms, {rps:.0f} req/s")
PY
}

explain() {  # explain FILE NAME BEFORE-ID: the SQL of RunRepository.page as Hibernate sends it
  sql -c "explain (analyze, buffers) select * from pipeline_run r1_0
      where r1_0.pipeline_name = '$2' $( [ -n "$3" ] && echo "and r1_0.id < '$3'" )
      order by r1_0.id desc offset 0 rows fetch first 51 rows only" > "$1"
}

pages() {  # pages LABEL
  echo "$1 (load $(load)):" | tee -a "$out"
  curl -fsS "$BASE/api/v1/runs?pipeline=hist-a&limit=50" > /dev/null
  latency "hist-a first page (50 runs)" "/api/v1/runs?pipeline=hist-a&limit=50"
  latency "hist-a page 4,001 (cursor 200,000 runs deep)" "/api/v1/runs?pipeline=hist-a&limit=50&cursor=$(cursor "$deep_id")"
  latency "hist-rare first page" "/api/v1/runs?pipeline=hist-rare&limit=50"
  latency "hist-rare page 17 (cursor 800 runs deep)" "/api/v1/runs?pipeline=hist-rare&limit=50&cursor=$(cursor "$rare_deep_id")"
}

pages "with the V40 index (pipeline_name, id DESC)"
explain "$BENCH_DIR/history/explain-first-page.txt" hist-a ""
explain "$BENCH_DIR/history/explain-deep-page.txt" hist-a "$deep_id"
explain "$BENCH_DIR/history/explain-rare-first-page.txt" hist-rare ""
sql -c "drop index ix_run_pipeline_name_id"
pages "without it (as before V40)"
explain "$BENCH_DIR/history/explain-rare-first-page-without-index.txt" hist-rare ""
sql -c "create index ix_run_pipeline_name_id on pipeline_run (pipeline_name, id desc)"
stop_service

# Retention: the first sweep starts 20 s after start-up; meanwhile and until it has ended, a
# pipeline of 1,000 records is triggered, waited for, and triggered again.
api_setup() {
  api -X POST "$BASE/api/v1/plugins/extractors" -o /dev/null -d "{\"name\":\"tap-gen\",\"executable\":\"$BIN/tap-gen\",\"args\":[\"1000\"]}"
  api -X POST "$BASE/api/v1/plugins/loaders" -o /dev/null -d "{\"name\":\"target-last-state\",\"executable\":\"$BIN/target-last-state\"}"
  api -X POST "$BASE/api/v1/pipelines" -o /dev/null -d '{"name":"trig","extractor":"tap-gen","loader":"target-last-state","environment":"bench"}'
}
before_rows=$(sql -c "select count(*) from pipeline_run")
start_service history-retention -Dtapline.scheduler.enabled=false -Dtapline.retention.interval=20s
api_setup
: > "$RESULTS/history-triggers.txt"
deadline=$(( $(date +%s) + 1800 ))
until grep -q 'Run retention: deleted' "$RESULTS/history-retention.log"; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "no retention sweep ended within 30 min" >&2; exit 1; }
  at=$(now_ms)
  read -r code secs < <(curl -s -o "$RESULTS/trigger.json" -w '%{http_code} %{time_total}\n' -X POST \
      -H 'Content-Type: application/json' -d '{}' "$BASE/api/v1/pipelines/trig/runs")
  [ "$code" = 202 ] || { cat "$RESULTS/trigger.json" >&2; exit 1; }
  run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$RESULTS/trigger.json")
  until [ -n "$(sql -c "select 1 from pipeline_run where id = '$run' and status not in ('QUEUED','RUNNING')")" ]; do sleep 0.02; done
  echo "$at $(python3 -c "print(round($secs * 1000, 1))") $(sql -c "select round(extract(epoch from ended_at - queued_at) * 1000) from pipeline_run where id = '$run'")" >> "$RESULTS/history-triggers.txt"
done
line=$(grep -o 'Run retention: deleted.*' "$RESULTS/history-retention.log" | head -1)
end_ms=$(python3 - "$RESULTS/history-retention.log" <<'PY'
import datetime, re, sys
for l in open(sys.argv[1]):
    if "Run retention: deleted" in l:
        t = datetime.datetime.strptime(l[:23], "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=datetime.timezone.utc)
        print(int(t.timestamp() * 1000)); break
PY
)
took=$(echo "$line" | grep -o '([0-9]* ms)' | grep -o '[0-9]*')
start_ms=$(( end_ms - took ))
python3 - "$RESULTS/history-triggers.txt" "$start_ms" "$end_ms" <<'PY' | tee -a "$out"
import statistics, sys
rows = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1]) if l.strip()]
s, e = float(sys.argv[2]), float(sys.argv[3])
for label, sel in (("before pruning", [r for r in rows if r[0] < s]), ("during pruning", [r for r in rows if s <= r[0] <= e])):
    if sel:
        print(f"  trigger {label}: {len(sel)} runs, POST .../runs median {statistics.median(r[1] for r in sel):.1f} ms,"
              f" max {max(r[1] for r in sel):.1f} ms; queued-to-ended median {statistics.median(r[2] for r in sel):.0f} ms")
    else:
        print(f"  trigger {label}: no runs")
PY
echo "retention (keep 90 days and 100 runs per pipeline, batches of 5000): $line; rows $before_rows -> $(sql -c "select count(*) from pipeline_run"); load $(load)" | tee -a "$out"
