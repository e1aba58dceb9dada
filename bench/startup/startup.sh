#!/usr/bin/env bash
# Start-up time to ready and idle memory of the fast-jar on two JDKs, alternating between them.
#
#   bench/startup/startup.sh [STARTS] [JDK_A] [JDK_B]
#     defaults: 5 starts each; java on PATH (JDK 17); /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
#
# Launch-to-ready is from starting the JVM to the first 200 of /q/health/ready (polled every
# 20 ms); "started in" is Quarkus' own figure. RSS is VmRSS after 10 s idle. Default JVM
# options and heap sizing (no -Xmx), on an already migrated database, scheduler and runner on.
# Writes $RESULTS/startup.txt.
source "$(dirname "$0")/../lib.sh"
need curl psql python3
STARTS=${1:-5}
A=${2:-$(command -v java)}
B=${3:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
out=$RESULTS/startup.txt
: > "$out"
fresh_db
JAVA=$A start_service startup-migrate
stop_service

declare -A ready started rss
for i in $(seq 1 "$STARTS"); do
  for jdk in "$A" "$B"; do
    JAVA=$jdk start_service startup
    sleep 10
    ready[$jdk]+=" $READY_MS"
    started[$jdk]+=" $(grep -o 'started in [0-9.]*s' "$RESULTS/startup.log" | grep -o '[0-9.]*' | tail -1)"
    rss[$jdk]+=" $(( $(rss_kb "$SERVICE_PID" VmRSS) / 1024 ))"
    stop_service
  done
done
for jdk in "$A" "$B"; do
  # shellcheck disable=SC2086
  echo "$("$jdk" -version 2>&1 | head -1): launch-to-ready median $(median ${ready[$jdk]}) ms (${ready[$jdk]# }); Quarkus 'started in' median $(median ${started[$jdk]}) s; idle RSS median $(median ${rss[$jdk]}) MiB (${rss[$jdk]# }) | load $(load)" | tee -a "$out"
done
