#!/usr/bin/env bash
# How long a CLI launch waits between its output and its exit, and why: runs `tapline state get ID`
# N times under strace and prints, per launch, the wall time, the time from the output's write(1)
# to the process's end, and the number of 10 ms waits of the JVM's exit that timed out (HotSpot's
# VM_Exit::wait_for_threads_in_native_to_block polls 10 ms at a time, up to about 30 times, while
# another thread is in native code, e.g. the HTTP client's selector thread in epoll_wait). With
# several launchers, alternates them launch by launch.
#
#   TAPLINE_URL=... TAPLINE_TOKEN=... bench/cli/exit-wait.sh ID N LAUNCHER...
#
# Needs strace and a running service (bench/cli/cli.sh starts one; any will do). strace slows
# every launch, so the wall times here are not those of §8; the counts are what matter.
set -euo pipefail
id=$1 n=$2; shift 2
command -v strace >/dev/null || { echo "missing: strace" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# secs HH:MM:SS.micros -> seconds
secs() { awk -F: '{ printf "%.6f", $1 * 3600 + $2 * 60 + $3 }' <<< "$1"; }
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$n"); do
  for cli in "$@"; do
    s=$(date +%s%N)
    strace -f -tt -o "$tmp/trace" -e trace=futex,epoll_wait,write,exit_group "$cli" state get "$id" > "$tmp/out"
    e=$(date +%s%N)
    line=$(grep -n 'write(1, ' "$tmp/trace" | tail -1 | cut -d: -f1)
    t_out=$(sed -n "${line}p" "$tmp/trace" | awk '{ print $2 }')
    t_end=$(tail -1 "$tmp/trace" | awk '{ print $2 }')
    waits=$(tail -n +"$line" "$tmp/trace" | grep -c 'ETIMEDOUT' || true)
    printf '%-55s wall %5d ms  output->exit %4.0f ms  timed-out exit waits %2d\n' "$cli" $(( (e - s) / 1000000 )) \
      "$(awk -v a="$(secs "$t_out")" -v b="$(secs "$t_end")" 'BEGIN { print (b - a) * 1000 }')" "$waits"
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
