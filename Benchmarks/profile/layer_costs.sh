#!/usr/bin/env bash
# What each layer of the gateway adds to the CPU time of a `Person(n)`, measured under load:
#   Benchmarks/profile/layer_costs.sh [DB] [ROUNDS] [SECONDS]
# DB defaults to the benchmark's 1,000-person data set (Benchmarks/run.sh generates it).
#
# It builds a copy of the working tree with layer_costs.patch applied, which makes the gateway
# answer GET Person(n) with the fixed bytes of a real `Person(7)` answer (same length, same five
# headers) at the layer LAYER_COSTS_STOP names:
#   accepted  as soon as libmicrohttpd hands the request over (the server layer alone);
#   routed    once the request is parsed and resolved (`requestContext`);
#   read      once SQLite found the row (before its ETag and its JSON);
#   (unset)   not at all: the product.
# The patch names the lines it cuts into: when they change, `patch` or the build stops the script,
# and the patch must follow them.
# Each round runs, one after the other, the C ceiling, the C floor and the four gateways under
# wrk (16 connections, random keys, as in the benchmark) and prints each server's requests/s
# and user and kernel CPU per request; the summary gives the means and what each layer adds.
# instructions_per_request.sh counts instructions of one request at a time; this measures time
# under the benchmark's load, layer by layer.
# Every response must be a 2xx: a failing request costs something else entirely.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
db=${1:-$repo/Benchmarks/results/data/people-1000.sqlite}
rounds=${2:-3}
seconds=${3:-3}
[ -f "$db" ] || { echo "no database at $db: run Benchmarks/run.sh once, or name one" >&2; exit 2; }
work=$(mktemp -d)
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

cc -O2 -o "$work/ceiling" "$repo/Benchmarks/ceiling/ceiling.c" $(pkg-config --cflags --libs libmicrohttpd)
cc -O2 -o "$work/floor" "$repo/Benchmarks/floor/floor.c" $(pkg-config --cflags --libs libmicrohttpd sqlite3)
mkdir "$work/src"
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
(cd "$work/src" && patch -p1 --quiet <"$here/layer_costs.patch")
echo "building the gateway with layer_costs.patch ..." >&2
swift build -c release --product dealer-gateway --package-path "$work/src" --scratch-path "$work/build" >"$work/build.log" 2>&1 \
  || { tail -20 "$work/build.log" >&2; exit 1; }
gateway="$work/build/release/dealer-gateway"
clock_ticks=$(getconf CLK_TCK)

# Starts "$@" on a fresh copy of the database, waits for its "Serving" line, sets server_pid and port.
start_server() {
  cp "$db" "$work/db.sqlite"
  rm -f "$work/db.sqlite-wal" "$work/db.sqlite-shm"
  "$@" >"$work/out" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do grep -q Serving "$work/out" 2>/dev/null && break; sleep 0.1; done
  port=$(grep -o 'Serving http://127.0.0.1:[0-9]*' "$work/out" | grep -o '[0-9]*$')
}

run_wrk() {
  (cd "$repo/Benchmarks/wrk" && BENCH_WRK_DIR="$PWD" BENCH_PATH='Person({n})' BENCH_PEOPLE=1000 \
    wrk -t2 -c16 -d"$1"s -s get.lua "http://127.0.0.1:$port/CarDealer.svc/") >"$work/wrk" 2>&1
}

# Loads the running server, stops it and appends "label req/s user kernel" to the results.
measure() {
  local label=$1 before after
  run_wrk 1  # warm-up: every key parsed and cached, as in a benchmark run
  before=$(awk '{print $14, $15}' "/proc/$server_pid/stat")
  run_wrk "$seconds"
  after=$(awk '{print $14, $15}' "/proc/$server_pid/stat")
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  python3 - "$work/wrk" "$label" "$clock_ticks" $before $after <<'PY' | tee -a "$work/results"
import json, re, sys
label, ticks, u0, k0, u1, k1 = sys.argv[2], *map(float, sys.argv[3:])
result = json.loads(re.search(r"BENCH_RESULT (.*)", open(sys.argv[1]).read()).group(1))
if result["non2xx"] or result["requests"] == 0:
    sys.exit(f"{label}: {result['non2xx']} of {result['requests']} responses were not 2xx")
n = result["requests"]
print(f"{label} {n / (result['duration_us'] / 1e6):.0f} {(u1 - u0) / ticks / n * 1e6:.2f} {(k1 - k0) / ticks / n * 1e6:.2f}")
PY
}

printf '%-10s %8s %12s %14s\n' "server" "req/s" "user µs/req" "kernel µs/req"
for round in $(seq 1 "$rounds"); do
  start_server "$work/ceiling" --port 0
  measure ceiling
  start_server "$work/floor" --db "$work/db.sqlite" --port 0
  measure floor
  for stop in accepted routed read full; do
    start_server env LAYER_COSTS_STOP="$([ "$stop" = full ] || echo "$stop")" "$gateway" serve \
      --schema "$repo/Schema/CarDealer.edmx" --db "$work/db.sqlite" --port 0 --log-level error
    measure "$stop"
  done
done | awk '{printf "%-10s %8d %12.2f %14.2f\n", $1, $2, $3, $4}'

python3 - "$work/results" <<'PY'
import collections, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, rps, user, kernel = line.split()
    rows[label].append((float(rps), float(user), float(kernel)))
mean = lambda label, i: sum(r[i] for r in rows[label]) / len(rows[label])
print(f"\nmeans of {len(rows['full'])} rounds; user µs/req, and what each step adds to the one before:")
steps = [("ceiling", "C ceiling: libmicrohttpd, fixed body, 2 headers"),
         ("floor", "C floor: libmicrohttpd + one prepared SQLite lookup, 5 headers"),
         ("accepted", "gateway answering at once (server layer, 5 headers)"),
         ("routed", "+ request, parse cache, routing (requestContext)"),
         ("read", "+ SQLite lookup and row"),
         ("full", "+ ETag and JSON: the product")]
previous = None
for label, text in steps:
    user = mean(label, 1)
    added = f"  (+{user - mean(previous, 1):.2f})" if previous in ("accepted", "routed", "read") else ""
    print(f"  {text:<66} {mean(label, 0):8.0f} req/s {user:6.2f}{added}")
    previous = label
PY
