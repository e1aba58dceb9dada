#!/usr/bin/env bash
# Catalog cache (issue 16): a Python tap with discovery and a Python target, N rows, through a
# direct pipe and through Tapline, alternated ROUNDS times. Tapline's first run discovers the
# catalog; the later ones take it from the catalog cache (catalogSource "cache"), which is what the
# 1.05x goal is about. The direct pipe is what an operator who already has the catalog runs:
#   tap --config c.json --catalog catalog.json | target --config t.json
#
#   bench/catalog/catalog.sh [N] [ROUNDS]        (defaults: 100000 rows, 5 rounds)
#
# The tap is src/test/resources/connectors/catalog_tap.py (stdlib only): --discover sleeps
# DISCOVER_DELAY seconds (default 1, about what a Meltano SDK tap's discovery costs) before it
# prints its catalog; the sync prints one RECORD per line of a file. The target is
# test_target.py (acknowledges each STATE). Writes $RESULTS/catalog-N.txt.
source "$(dirname "$0")/../lib.sh"
need curl psql python3
N=${1:-100000}
ROUNDS=${2:-5}
DELAY=${DISCOVER_DELAY:-1}
TAP=$ROOT/src/test/resources/connectors/catalog_tap.py
TARGET=$ROOT/src/test/resources/connectors/test_target.py
work=${TMPDIR:-/tmp}/tapline-catalog-bench
rm -rf "$work"; mkdir -p "$work"
python3 -c "import sys; open(sys.argv[1], 'w').write(''.join('user %d\n' % i for i in range($N)))" "$work/users.txt"
echo "{\"file\": \"$work/users.txt\", \"discover_delay\": $DELAY, \"count_file\": \"$work/discoveries\"}" > "$work/tap.json"
echo '{}' > "$work/target.json"
clean() { env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" "$@"; }
# the catalog with every stream and property selected, as Meltano's default select '*.*' writes it
clean "$TAP" --config "$work/tap.json" --discover | python3 -c '
import json, sys
c = json.load(sys.stdin)
for s in c["streams"]:
    for m in s["metadata"]:
        m["metadata"]["selected"] = True
json.dump(c, sys.stdout)' > "$work/catalog.json"
: > "$work/discoveries"

fresh_db
start_service catalog-$N -Dtapline.scheduler.enabled=false
api -X POST "$BASE/api/v1/plugins/extractors" -o /dev/null -d "{\"name\":\"tap-users\",\"executable\":\"$TAP\",
  \"capabilities\":[\"catalog\",\"discover\",\"state\"],\"config\":$(cat "$work/tap.json")}"
api -X POST "$BASE/api/v1/plugins/loaders" -o /dev/null -d "{\"name\":\"target-ack\",\"executable\":\"$TARGET\"}"
api -X POST "$BASE/api/v1/pipelines" -o /dev/null -d '{"name":"catalog-bench","extractor":"tap-users",
  "loader":"target-ack","environment":"bench"}'

out=$RESULTS/catalog-$N.txt
: > "$out"
direct=(); through=(); ratios=()
for round in $(seq 1 "$ROUNDS"); do
  t0=$(date +%s%N)
  clean "$TAP" --config "$work/tap.json" --catalog "$work/catalog.json" 2>/dev/null \
    | clean "$TARGET" --config "$work/target.json" 2>/dev/null > "$work/direct-state"
  [ -s "$work/direct-state" ] || { echo "the direct pipe acknowledged no state" >&2; exit 1; }
  d=$(( ($(date +%s%N) - t0) / 1000000 ))
  t0=$(date +%s%N)
  run=$(api -X POST "$BASE/api/v1/pipelines/catalog-bench/runs" -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  until [ -n "$(sql -c "select 1 from pipeline_run where id = '$run' and status not in ('QUEUED','RUNNING')")" ]; do
    sleep 0.01
  done
  t=$(( ($(date +%s%N) - t0) / 1000000 ))
  read -r status records source < <(sql -F ' ' -c "select status, records_total, catalog_source from pipeline_run where id = '$run'")
  [ "$status" = SUCCEEDED ] && [ "$records" = "$N" ] || { echo "run $run: $status, $records records" >&2; exit 1; }
  ratio=$(python3 -c "print(round($t / $d, 3))")
  if [ "$round" -gt 1 ]; then direct+=("$d"); through+=("$t"); ratios+=("$ratio"); fi
  printf 'round %d: direct pipe %d ms | Tapline trigger-to-end %d ms (catalog %s) | Tapline/direct %s | load %s\n' \
    "$round" "$d" "$t" "$source" "$ratio" "$(load)" | tee -a "$out"
done
{
  echo "N=$N rounds=$ROUNDS discover_delay=${DELAY}s discoveries by Tapline: $(wc -l < "$work/discoveries")"
  echo "rounds 2..$ROUNDS (catalog from the cache): median direct $(median "${direct[@]}") ms," \
    "median Tapline $(median "${through[@]}") ms, median Tapline/direct $(median "${ratios[@]}")"
} | tee -a "$out"
