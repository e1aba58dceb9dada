#!/usr/bin/env bash
# Runs every benchmark of bench/README.md one after the other, with the arguments the README's
# table was made with. About 45 minutes on the 2-core machine. Build the fast-jar first:
#   ./mvnw -B package -DskipTests && bench/run-all.sh
set -euo pipefail
cd "$(dirname "$0")"
relay/relay.sh 1000000 5
relay/relay.sh 10000000 1
TAP=python relay/relay.sh 1000000 3
state/state.sh 5 30
scheduler/scheduler.sh 3 3
history/history.sh 10
startup/startup.sh 5
catalog/catalog.sh 100000 9
runcost/runcost.sh 30
JAVA_B=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java cli/cli.sh 20
