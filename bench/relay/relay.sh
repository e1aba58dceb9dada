#!/usr/bin/env bash
# Relay throughput: tap-gen | target-last-state through a direct OS pipe, and the same two
# programs as a Tapline pipeline, alternated ROUNDS times so each ratio is measured side by side.
#
#   bench/relay/relay.sh [N] [ROUNDS]        (defaults: 1000000 records, 5 rounds)
#
# Prints one line per round and the medians; writes $RESULTS/relay-N.txt. The service's peak RSS
# (VmHWM of the JVM) and its largest VmRSS seen while the runs lasted are reported at the end.
# Extra JVM options for the service: SERVICE_OPTS (e.g. "-XX:StartFlightRecording=...").
# TAP=python uses tap_gen.py (the same messages written by Python's json module, a tap of
# realistic speed) instead of the compiled tap-gen.
source "$(dirname "$0")/../lib.sh"
need gcc curl psql python3
N=${1:-1000000}
ROUNDS=${2:-5}
BIN=$RESULTS/bin
mkdir -p "$BIN"
gcc -O2 -o "$BIN/tap-gen" "$BENCH_DIR/relay/tap-gen.c"
gcc -O2 -o "$BIN/target-last-state" "$BENCH_DIR/relay/target-last-state.c"
TAP_BIN=$BIN/tap-gen
name=relay-$N
if [ "${TAP:-c}" = python ]; then
  need python3
  TAP_BIN=$BENCH_DIR/relay/tap_gen.py
  name=relay-python-$N
fi

fresh_db
# shellcheck disable=SC2086
start_service "$name" ${SERVICE_OPTS:-} -Dtapline.scheduler.enabled=false
api -X POST "$BASE/api/v1/plugins/extractors" -o /dev/null -d "{\"name\":\"tap-gen\",\"executable\":\"$TAP_BIN\",
  \"args\":[\"$N\"],\"capabilities\":[\"state\"]}"
api -X POST "$BASE/api/v1/plugins/loaders" -o /dev/null -d "{\"name\":\"target-last-state\",\"executable\":\"$BIN/target-last-state\"}"
api -X POST "$BASE/api/v1/pipelines" -o /dev/null -d "{\"name\":\"$name\",\"extractor\":\"tap-gen\",
  \"loader\":\"target-last-state\",\"environment\":\"bench\"}"

# Sample the service's RSS every 100 ms while the rounds run.
( max=0; while kill -0 "$SERVICE_PID" 2>/dev/null; do r=$(rss_kb "$SERVICE_PID" VmRSS); [ "${r:-0}" -gt "$max" ] && max=$r && echo "$max" > "$RESULTS/$name.maxrss"; sleep 0.1; done ) &
sampler=$!
rss_idle=$(rss_kb "$SERVICE_PID" VmRSS)

out=$RESULTS/$name.txt
: > "$out"
direct=() ; through=() ; process=() ; ratios=()
for round in $(seq 1 "$ROUNDS"); do
  t0=$(date +%s%N)
  # The environment the service gives connectors (tapline.runner.inherit-env), not this shell's:
  # e.g. a PYTHONUNBUFFERED=1 here would make a Python tap write line by line.
  env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" "$TAP_BIN" "$N" \
    | env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" "$BIN/target-last-state" > "$RESULTS/$name.direct-state" 2>/dev/null
  d=$(( ($(date +%s%N) - t0) / 1000000 ))

  t0=$(date +%s%N)
  run=$(api -X POST "$BASE/api/v1/pipelines/$name/runs" -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  until [ -n "$(sql -c "select 1 from pipeline_run where id = '$run' and status not in ('QUEUED','RUNNING')")" ]; do
    [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt 1800 ] || { echo "run $run did not end in 30 min" >&2; exit 1; }
    sleep 0.01
  done
  t=$(( ($(date +%s%N) - t0) / 1000000 ))
  read -r status records p < <(sql -F ' ' -c "select status, records_total,
      round(extract(epoch from ended_at - started_at) * 1000) from pipeline_run where id = '$run'")
  [ "$status" = SUCCEEDED ] && [ "$records" = "$N" ] || { echo "run $run: $status, $records records" >&2; exit 1; }
  direct+=("$d"); through+=("$t"); process+=("$p")
  ratio=$(python3 -c "print(round($d / $t, 3))"); ratios+=("$ratio")
  printf 'round %d: direct pipe %d ms (%.0f rec/s) | Tapline trigger-to-end %d ms (%.0f rec/s), started_at-to-ended_at %d ms | ratio %s | load %s\n' \
    "$round" "$d" "$(python3 -c "print($N * 1000 / $d)")" "$t" "$(python3 -c "print($N * 1000 / $t)")" "$p" "$ratio" "$(load)" | tee -a "$out"
done
kill "$sampler" 2>/dev/null || true
md=$(median "${direct[@]}"); mt=$(median "${through[@]}"); mp=$(median "${process[@]}"); mr=$(median "${ratios[@]}")
hwm=$(rss_kb "$SERVICE_PID" VmHWM)
{
  echo "N=$N rounds=$ROUNDS"
  printf 'median direct pipe: %.0f ms = %.0f records/s\n' "$md" "$(python3 -c "print($N * 1000 / $md)")"
  printf 'median Tapline trigger-to-end: %.0f ms = %.0f records/s\n' "$mt" "$(python3 -c "print($N * 1000 / $mt)")"
  printf 'median Tapline started_at-to-ended_at: %.0f ms = %.0f records/s\n' "$mp" "$(python3 -c "print($N * 1000 / $mp)")"
  echo "median ratio (direct time / Tapline time = throughput b/a): $mr"
  echo "service RSS idle before the runs: $((rss_idle / 1024)) MiB; largest VmRSS sampled: $(( $(cat "$RESULTS/$name.maxrss") / 1024 )) MiB; VmHWM: $((hwm / 1024)) MiB"
  echo "state stored: $(sql -c "select completed from singer_state where state_id = 'bench:tap-gen-to-target-last-state'" | cut -c1-80)..."
} | tee -a "$out"
