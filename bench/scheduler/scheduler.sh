#!/usr/bin/env bash
# Scheduler scale: start-up time and heap with 10,000 and 100,000 scheduled pipelines, and the fire
# lag (queued_at - scheduled_for of the run rows) of 2,000 and 10,000 pipelines sharing one
# `* * * * *` tick on two replicas of the service sharing one database.
#
#   bench/scheduler/scheduler.sh [STARTS] [ROUNDS]     (defaults: 3 start-ups per size and build,
#                                                       3 lag rounds per size and build;
#                                                       STARTS=0 measures the fire lag only,
#                                                       ROUNDS=0 the start-ups only)
#
# BEFORE=<copy of target/quarkus-app of another build> compares two builds: every measurement
# alternates BEFORE and APP (the default target/quarkus-app), and medians are printed per build.
# SIZES (default "2000 10000") are the lag sizes, STARTUP_SIZES (default "10000 100000") the
# start-up sizes.
#
# Lag round: the N pipelines get one cron minute, `M H * * *` in UTC, LEAD s (default 100) or a
# little more ahead, so nothing fires before the measured instant and all N share it (as a
# `* * * * *` minute or Meltano's `@daily` would); the runs table is emptied, every second
# pipeline's state ID gets a QUEUED run of an API trigger (so half of the tick's rows are SKIPPED
# naming it, half QUEUED); two replicas start at once (ports PORT and PORT+1, scheduler on,
# tapline.runner.max-concurrent-runs=0 so runs are only queued). The round ends when the tick has
# a row per pipeline (or after LAG_TIMEOUT s, default 300). Meanwhile WARM (default 100) other
# pipelines fire every 7, 11 or 13 s (never at the measured instant), so that the measured tick is
# not the first the replicas' JIT and connections see (a cold first tick was measured separately,
# see bench/README.md). The other pipelines of the table are '@manual'. Extra JVM options for the service: SERVICE_OPTS.
# Writes $RESULTS/scheduler.txt (one line per start and round, then the medians).
source "$(dirname "$0")/../lib.sh"
need curl psql python3 jcmd
STARTS=${1:-3}
ROUNDS=${2:-3}
SIZES=${SIZES:-2000 10000}
STARTUP_SIZES=${STARTUP_SIZES:-10000 100000}
LAG_TIMEOUT=${LAG_TIMEOUT:-300}
LEAD=${LEAD:-100}
WARM=${WARM:-100}
AFTER_APP=$APP
out=$RESULTS/scheduler.txt
: > "$out"
# shellcheck disable=SC2206
OPTS=(${SERVICE_OPTS:-} -Dtapline.scheduler.enabled=true -Dtapline.runner.max-concurrent-runs=0)
PORT2=$((PORT + 1))
SECOND_PID=

builds() { if [ -n "${BEFORE:-}" ]; then echo "before after"; else echo "after"; fi; }
app_of() { if [ "$1" = before ]; then echo "$BEFORE"; else echo "$AFTER_APP"; fi; }
log() { echo "$* | load $(load)" | tee -a "$out"; }

stop_all() {
  stop_service
  if [ -n "$SECOND_PID" ] && kill -0 "$SECOND_PID" 2>/dev/null; then
    kill "$SECOND_PID"; wait "$SECOND_PID" 2>/dev/null || true
  fi
  SECOND_PID=
}
trap stop_all EXIT

# start_two BUILD NAME: both replicas of BUILD at once (ports PORT and PORT2); waits until both are
# ready; their pids in SERVICE_PID and SECOND_PID.
start_two() {
  local jar; jar=$(app_of "$1")/quarkus-run.jar
  local pids=() port name
  for port in "$PORT" "$PORT2"; do
    name="$2-$port"
    rm -rf "$RESULTS/work-$name"; mkdir -p "$RESULTS/work-$name"
    (cd "$RESULTS/work-$name" && exec "$JAVA" "${OPTS[@]}" -Dquarkus.http.port="$port" \
        -Dquarkus.datasource.jdbc.url="jdbc:postgresql://$PGHOST:$PGPORT/$BENCH_DB" \
        -Dquarkus.datasource.username="$PGUSER" -Dquarkus.datasource.password=unused \
        -Dquarkus.log.console.level=INFO -Dtapline.security.enabled="${BENCH_SECURITY:-false}" \
        -jar "$jar" >"$RESULTS/$name.log" 2>&1) &
    pids+=($!)
  done
  SERVICE_PID=${pids[0]} SECOND_PID=${pids[1]}
  for port in "$PORT" "$PORT2"; do
    until curl -fs -o /dev/null "http://127.0.0.1:$port/q/health/ready"; do
      kill -0 "$SERVICE_PID" 2>/dev/null && kill -0 "$SECOND_PID" 2>/dev/null || { echo "a replica died; see $RESULTS/$2-*.log" >&2; exit 1; }
      sleep 0.1
    done
  done
}

# pipelines N: N pipelines sched-1..N, their interval set by set_scheduled.
pipelines() {
  sql -c "delete from pipeline_run" -c "delete from pipeline"
  sql -c "insert into pipeline (name, extractor_id, loader_id, environment, state_id, schedule_interval, schedule_timezone)
    select 'sched-' || g, (select id from plugin where name = 'tap-sched'), (select id from plugin where name = 'target-sched'),
      'bench', 'bench:sched-' || g, '@manual', 'UTC'
    from generate_series(1, $1) g"
  sql -c "insert into pipeline (name, extractor_id, loader_id, environment, state_id, schedule_interval, schedule_timezone)
    select 'warm-' || g, (select id from plugin where name = 'tap-sched'), (select id from plugin where name = 'target-sched'),
      'bench', 'bench:warm-' || g, '@manual', 'UTC'
    from generate_series(1, $WARM) g"
}

# set_scheduled N MIXED: the first N pipelines on '* * * * *' (MIXED=1: the others daily or weekly in
# four time zones, as an installation's schedules would be; MIXED=0: the others '@manual').
set_scheduled() {
  sql -c "update pipeline set
      schedule_interval = case when id <= (select min(id) from pipeline) + $1 - 1 then '* * * * *'
        when $2 = 1 then (array['30 2 * * *', '@daily', '0 6 * * mon-fri', '@weekly', '15 3 * * *'])[id % 5 + 1]
        else '@manual' end,
      schedule_timezone = case when id <= (select min(id) from pipeline) + $1 - 1 or $2 = 0 then 'UTC'
        else (array['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'])[id % 4 + 1] end,
      version = version + 1"
}

fresh_db
start_service scheduler-migrate "${OPTS[@]}"
stop_service
sql -c "insert into plugin (type, name, executable) values ('extractors', 'tap-sched', '/bin/true'), ('loaders', 'target-sched', '/bin/true')"

# ---- start-up and heap: STARTS start-ups per size and build, alternating builds.
declare -A READY STARTED HEAP RSS LOADED
for size in $STARTUP_SIZES; do
  [ "$STARTS" -gt 0 ] || break
  pipelines "$size"
  set_scheduled 200 1
  for i in $(seq 1 "$STARTS"); do
    for b in $(builds); do
      APP=$(app_of "$b")
      start_service "scheduler-start-$b-$size" "${OPTS[@]}"
      sleep 5
      logf="$RESULTS/scheduler-start-$b-$size.log"
      s=$(grep -o 'started in [0-9.]*s' "$logf" | grep -o '[0-9.]*' | tail -1)
      l=$(grep -o 'scheduled pipelines in [0-9]* ms' "$logf" | grep -o '[0-9]* ms' | grep -o '[0-9]*' | tail -1)
      r=$(( $(rss_kb "$SERVICE_PID" VmRSS) / 1024 ))
      h=$(( $(heap_used_kb "$SERVICE_PID") / 1024 ))
      stop_service
      READY[$b-$size]+="$READY_MS "; STARTED[$b-$size]+="$s "; HEAP[$b-$size]+="$h "; RSS[$b-$size]+="$r "; LOADED[$b-$size]+="$l "
      log "start $b $size pipelines: launch-to-ready $READY_MS ms, Quarkus 'started in' $s s, ticker load $l ms, heap after full GC $h MiB, RSS $r MiB"
    done
  done
  for b in $(builds); do
    # shellcheck disable=SC2086
    log "START $b $size pipelines, medians of $STARTS: launch-to-ready $(median ${READY[$b-$size]}) ms (${READY[$b-$size]% }); 'started in' $(median ${STARTED[$b-$size]}) s; ticker load $(median ${LOADED[$b-$size]}) ms; heap $(median ${HEAP[$b-$size]}) MiB (${HEAP[$b-$size]% }); RSS $(median ${RSS[$b-$size]}) MiB"
  done
done

# ---- fire lag: ROUNDS rounds per size and build, alternating builds.
declare -A P50 P99 MAX
max_size=0; for s in $SIZES; do [ "$s" -gt "$max_size" ] && max_size=$s; done
[ "$ROUNDS" -gt 0 ] && pipelines "$max_size"
for size in $SIZES; do
  [ "$ROUNDS" -gt 0 ] || break
  set_scheduled "$size" 0
  for i in $(seq 1 "$ROUNDS"); do
    for b in $(builds); do
      # The measured instant: a daily cron minute far enough ahead for both replicas to start.
      tick=$(( ($(date +%s) + LEAD + 59) / 60 * 60 ))
      sql -c "update pipeline set schedule_interval = '$(date -u -d @"$tick" '+%-M %-H') * * *', version = version + 1
        where schedule_interval <> '@manual' and name like 'sched-%'"
      # Warm-up: WARM other pipelines on PT<w>S, w chosen so that they never fire at the measured instant.
      for w in 7 11 13; do [ $(( tick % w )) -ne 0 ] && break; done
      sql -c "update pipeline set schedule_interval = 'PT${w}S', version = version + 1 where name like 'warm-%'"
      sql -c "delete from pipeline_run"
      sql -c "insert into pipeline_run (id, pipeline_id, pipeline_name, state_id, trigger, status, queued_at, created_by)
        select gen_random_uuid(), id, name, state_id, 'API', 'QUEUED', now(), 'bench' from pipeline
        where schedule_interval <> '@manual' and name like 'sched-%' and id % 2 = 0"
      start_two "$b" "scheduler-lag-$b-$size"
      ready_before=$(( tick - $(date +%s) ))
      deadline=$(( tick + LAG_TIMEOUT ))
      until [ "$(sql -c "select count(*) from pipeline_run where scheduled_for = to_timestamp($tick) and pipeline_name like 'sched-%'")" -ge "$size" ] \
            || [ "$(date +%s)" -ge "$deadline" ]; do
        sleep 1
      done
      sleep 2
      stop_all
      sql -c "select round(extract(epoch from queued_at - scheduled_for) * 1000) from pipeline_run
        where scheduled_for = to_timestamp($tick) and pipeline_name like 'sched-%'" > "$RESULTS/scheduler-lag.ms"
      counts=$(sql -c "select count(*) filter (where status = 'QUEUED') || ' queued, ' || count(*) filter (where status = 'SKIPPED')
        || ' skipped, ' || count(distinct pipeline_id) || ' pipelines' from pipeline_run where scheduled_for = to_timestamp($tick) and pipeline_name like 'sched-%'")
      p50=$(percentile 50 "$RESULTS/scheduler-lag.ms"); p99=$(percentile 99 "$RESULTS/scheduler-lag.ms"); mx=$(percentile 100 "$RESULTS/scheduler-lag.ms")
      P50[$b-$size]+="$p50 "; P99[$b-$size]+="$p99 "; MAX[$b-$size]+="$mx "
      log "lag $b $size pipelines, 2 replicas, tick $(date -u -d @"$tick" +%H:%M:%S) (both ready $ready_before s before; $counts): p50 $p50 ms, p99 $p99 ms, max $mx ms"
    done
  done
  for b in $(builds); do
    # shellcheck disable=SC2086
    log "LAG $b $size pipelines on one tick, 2 replicas, medians of $ROUNDS rounds: p50 $(median ${P50[$b-$size]}) ms (${P50[$b-$size]% }); p99 $(median ${P99[$b-$size]}) ms (${P99[$b-$size]% }); max $(median ${MAX[$b-$size]}) ms (${MAX[$b-$size]% })"
  done
done
