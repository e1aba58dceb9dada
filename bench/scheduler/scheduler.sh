#!/usr/bin/env bash
# Scheduler scale: start-up time and memory with 10,000 scheduled pipelines (against none), and
# the fire lag (queued_at - scheduled_for of the run rows) when 200 pipelines share every minute.
#
#   bench/scheduler/scheduler.sh [STARTS] [MINUTES]     (defaults: 5 start-ups each, 3 minutes of ticks;
#                                                        STARTS=0 measures the fire lag only)
#
# Runs are never executed (tapline.runner.max-concurrent-runs=0): a tick queues a run, and the
# ticks after it find that run still QUEUED and record a SKIPPED run; both carry scheduled_for
# and queued_at, so every tick counts. The other 9,800 pipelines have daily or weekly schedules
# in four time zones (none fires during the measurement unless it runs across 02:30 or 03:15 UTC).
# Extra JVM options for the service: SERVICE_OPTS. Writes $RESULTS/scheduler.txt.
source "$(dirname "$0")/../lib.sh"
need curl psql python3 jcmd
STARTS=${1:-5}
MINUTES=${2:-3}
out=$RESULTS/scheduler.txt
: > "$out"
# shellcheck disable=SC2206
OPTS=(${SERVICE_OPTS:-} -Dtapline.scheduler.enabled=true -Dtapline.runner.max-concurrent-runs=0)

fresh_db
start_service scheduler-migrate "${OPTS[@]}"
stop_service
sql -c "insert into plugin (type, name, executable) values ('extractors', 'tap-sched', '/bin/true'), ('loaders', 'target-sched', '/bin/true')"

# measure LABEL: STARTS start-ups; median launch-to-ready, Quarkus' "started in", heap after a
# full GC and RSS 5 s after ready.
measure() {
  [ "$STARTS" -gt 0 ] || return 0   # STARTS=0: fire lag only
  local label=$1 ready=() started=() heap=() rss=()
  for i in $(seq 1 "$STARTS"); do
    start_service "scheduler-$label" "${OPTS[@]}"
    sleep 5
    ready+=("$READY_MS")
    started+=("$(grep -o 'started in [0-9.]*s' "$RESULTS/scheduler-$label.log" | grep -o '[0-9.]*' | tail -1)")
    rss+=("$(( $(rss_kb "$SERVICE_PID" VmRSS) / 1024 ))")
    heap+=("$(( $(heap_used_kb "$SERVICE_PID") / 1024 ))")
    stop_service
  done
  echo "$label: launch-to-ready median $(median "${ready[@]}") ms (${ready[*]}); Quarkus 'started in' median $(median "${started[@]}") s; heap used after full GC median $(median "${heap[@]}") MiB; RSS median $(median "${rss[@]}") MiB | load $(load)" | tee -a "$out"
}

measure "0-pipelines"

sql -c "insert into pipeline (name, extractor_id, loader_id, environment, state_id, schedule_interval, schedule_timezone)
  select 'sched-' || g, (select id from plugin where name = 'tap-sched'), (select id from plugin where name = 'target-sched'),
    'bench', 'bench:sched-' || g,
    case when g <= 200 then '* * * * *'
         else (array['30 2 * * *', '@daily', '0 6 * * mon-fri', '@weekly', '15 3 * * *'])[g % 5 + 1] end,
    case when g <= 200 then 'UTC' else (array['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'])[g % 4 + 1] end
  from generate_series(1, 10000) g"
measure "10000-pipelines"

# Fire lag: leave the service running for MINUTES whole minutes.
sql -c "delete from pipeline_run"
start_service scheduler-lag "${OPTS[@]}"
first=$(( ($(date +%s) / 60 + 1) * 60 ))
sleep $(( first + MINUTES * 60 + 5 - $(date +%s) ))
stop_service
sql -c "select round(extract(epoch from queued_at - scheduled_for) * 1000) from pipeline_run
  where scheduled_for >= to_timestamp($first) and scheduled_for < to_timestamp($first + $MINUTES * 60)" > "$RESULTS/scheduler-lag.ms"
per_tick=$(sql -c "select string_agg(n::text, ' ') from (select count(*) n from pipeline_run
  where scheduled_for >= to_timestamp($first) and scheduled_for < to_timestamp($first + $MINUTES * 60)
  group by scheduled_for order by scheduled_for) t")
echo "fire lag over $MINUTES ticks of 200 pipelines (runs per tick: $per_tick): p50 $(percentile 50 "$RESULTS/scheduler-lag.ms") ms, p99 $(percentile 99 "$RESULTS/scheduler-lag.ms") ms, max $(percentile 100 "$RESULTS/scheduler-lag.ms") ms | load $(load)" | tee -a "$out"
