#!/usr/bin/env bash
# Launch-to-exit time of `tapline state get <id>` against a running service, beside curl for the
# same call (issue 27: goal <= 300 ms on a quiet machine), alternating the clients round by round.
#
#   bench/cli/cli.sh [ROUNDS]        default 20 rounds
#
# Needs a built service and CLI (./mvnw -B package -DskipTests: target/quarkus-app and
# target/cli/bin/tapline) and the bench PostgreSQL (bench/lib.sh). The service runs with bearer
# tokens on, trusting a key pair made by `tapline token` in its work directory; both clients send
# the same token. Each round times, in this order: the CLI as installed (AppCDS archive made on
# the first run, before the rounds), curl, and the CLI with TAPLINE_CDS=off (no archive: what
# the archive saves); with JAVA_B=<another java>, also the CLI on that JDK; with CLI_B=<another build's
# bin/tapline> (e.g. main's, built apart), also that build, with its own archive, for before/after in
# the same rounds. Every CLI answer is
# compared byte for byte with curl's. Wall time from fork to exit, in ms, measured by this shell
# (date +%s%N around each command). Writes $RESULTS/cli.txt.
# its own database and port, so that it disturbs no other bench
BENCH_DB=${BENCH_DB:-tapline_bench_cli}
PORT=${PORT:-8097}
source "$(dirname "$0")/../lib.sh"
need curl psql python3
ROUNDS=${1:-20}
CLI=$ROOT/target/cli/bin/tapline
[ -x "$CLI" ] || { echo "build first: ./mvnw -B package -DskipTests (target/cli/bin/tapline)" >&2; exit 2; }
out=$RESULTS/cli.txt
work=${TMPDIR:-/tmp}/tapline-bench-cli
rm -rf "$work"; mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache TAPLINE_CONFIG=$work/config HOME=$work

TOKEN=$(cd "$work" && "$CLI" token --keys-dir keys 2>/dev/null)
fresh_db
BENCH_SECURITY=true start_service cli -Dmp.jwt.verify.publickey.location="file:$work/keys/public.pem" \
  -Dmp.jwt.verify.issuer=tapline-dev -Dtapline.scheduler.enabled=false
export TAPLINE_URL=$BASE TAPLINE_TOKEN=$TOKEN
ID=dev:tap-bench-to-target-bench
"$CLI" state set --force "$ID" \
  '{"singer_state": {"bookmarks": {"people": {"replication_key": "updated_at", "replication_key_value": "2024-01-05T12:00:00Z"}}}}'

# ms CMD...: runs it (stdout to $work/last.out), prints its wall time in ms and adds its CPU time
# (user + system, 10 ms resolution of GNU time) to $work/cpu.<variant>
ms() {
  local s e
  s=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$work/time.txt" "$@" > "$work/last.out"
  e=$(date +%s%N)
  awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$work/time.txt" >> "$work/cpu.${VARIANT:-x}"
  echo $(( (e - s) / 1000000 ))
}
curl_get() { curl -fsS -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/states/$ID"; }
curl_get > "$work/curl.out"
# the first CLI run with an empty cache makes the AppCDS archive (a training run); not counted
rm -rf "$XDG_CACHE_HOME"
first=$(ms "$CLI" state get "$ID")
cmp -s "$work/last.out" "$work/curl.out" || { echo "tapline state get differs from the API's answer" >&2; exit 1; }
for _ in 1 2 3; do "$CLI" state get "$ID" >/dev/null; curl_get >/dev/null; TAPLINE_CDS=off "$CLI" state get "$ID" >/dev/null; done
if [ -n "${CLI_B:-}" ]; then
  "$CLI_B" state get "$ID" > "$work/last.out"
  cmp -s "$work/last.out" "$work/curl.out" || { echo "$CLI_B state get differs from the API's answer" >&2; exit 1; }
fi

variants="cli curl nocds"
[ -n "${JAVA_B:-}" ] && variants="$variants jdkb" && JAVA_HOME=$(dirname "$(dirname "$JAVA_B")") "$CLI" state get "$ID" >/dev/null
[ -n "${CLI_B:-}" ] && variants="$variants clib"
declare -A t
rm -f "$work"/cpu.*
load_before=$(load)
for i in $(seq 1 "$ROUNDS"); do
  t[cli]+=" $(VARIANT=cli ms "$CLI" state get "$ID")"
  cmp -s "$work/last.out" "$work/curl.out" || { echo "differs in round $i" >&2; exit 1; }
  t[curl]+=" $(VARIANT=curl ms curl -fsS -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/states/$ID")"
  t[nocds]+=" $(TAPLINE_CDS=off VARIANT=nocds ms "$CLI" state get "$ID")"
  if [ -n "${JAVA_B:-}" ]; then
    t[jdkb]+=" $(JAVA_HOME=$(dirname "$(dirname "$JAVA_B")") VARIANT=jdkb ms "$CLI" state get "$ID")"
  fi
  if [ -n "${CLI_B:-}" ]; then
    t[clib]+=" $(VARIANT=clib ms "$CLI_B" state get "$ID")"
    cmp -s "$work/last.out" "$work/curl.out" || { echo "CLI_B differs in round $i" >&2; exit 1; }
  fi
done
load_after=$(load)
{
  echo "tapline state get $ID, $ROUNDS rounds alternating, $(java -version 2>&1 | head -1); load $load_before -> $load_after${CLI_B:+; clib = $CLI_B}"
  echo "first run with an empty cache (the training run that makes the AppCDS archive, then the command; not counted): $first ms"
  for v in $variants; do
    # shellcheck disable=SC2086
    printf '%-6s wall median %s ms  min %s  max %s  (%s); CPU median %s ms\n' "$v" "$(median ${t[$v]})" \
      "$(tr ' ' '\n' <<< "${t[$v]}" | grep . | sort -n | head -1)" "$(tr ' ' '\n' <<< "${t[$v]}" | grep . | sort -n | tail -1)" \
      "${t[$v]# }" "$(median $(cat "$work/cpu.$v"))"
  done
  echo "every CLI answer equal byte for byte to curl's: yes"
} | tee -a "$out"
