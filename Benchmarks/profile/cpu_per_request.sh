#!/usr/bin/env bash
# Where the machine's time goes per request, for the gateway and for the C ceiling answering the
# gateway's own response to the same target (its bytes, served from memory by libmicrohttpd):
#   Benchmarks/profile/cpu_per_request.sh GATEWAY_BINARY DB 'Person({n})' ['Person?$top=20' ...]
# "{n}" is a random Person key, as in the benchmark. Each server runs under wrk for 5 s at 16
# connections on 127.0.0.1, as in the benchmark; the line printed for it has its requests/s, the
# server's user and kernel CPU per request, wrk's CPU (user + kernel) per request, their total,
# and context switches per request (the server's threads and wrk's). wrk shares the cores with
# the server, so on a saturated machine requests/s = cores / total.
# Needs wrk, a C compiler and libmicrohttpd-dev (Benchmarks/run.sh installs them).
set -euo pipefail
gateway=${1:?gateway binary}; db=${2:?database}; shift 2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
export WRK_OUT="$work/wrk"
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -o "$work/ceiling" "$repo/Benchmarks/ceiling/ceiling.c" $(pkg-config --cflags --libs libmicrohttpd)
clock_ticks=$(getconf CLK_TCK)

# Starts "$@", waits for its "Serving http://127.0.0.1:PORT/" line and sets server_pid and port.
start_server() {
  "$@" >"$work/out" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do grep -q Serving "$work/out" 2>/dev/null && break; sleep 0.1; done
  port=$(grep -o 'Serving http://127.0.0.1:[0-9]*' "$work/out" | grep -o '[0-9]*$')
}

# CPU ticks (user, kernel) of the server, and context switches of all its threads.
server_counters() {
  awk '{printf "%s %s ", $14, $15}' "/proc/$server_pid/stat"
  cat /proc/"$server_pid"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'
}

# Loads the running server with wrk on `path` and prints its line. Python starts wrk so that
# wait4 gives its CPU time and context switches.
measure() {
  local label=$1 path=$2
  read -r user0 kernel0 switches0 <<<"$(server_counters)"
  local wrk_usage
  wrk_usage=$(cd "$repo/Benchmarks/wrk" && BENCH_WRK_DIR="$PWD" BENCH_PATH="$path" BENCH_PEOPLE=1000 python3 -c '
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=open(os.environ["WRK_OUT"], "w"), stderr=subprocess.STDOUT)
_, status, usage = os.wait4(child.pid, 0)
print(usage.ru_utime + usage.ru_stime, usage.ru_nvcsw + usage.ru_nivcsw)
' wrk -t2 -c16 -d5s -s get.lua "http://127.0.0.1:$port/CarDealer.svc/")
  read -r user1 kernel1 switches1 <<<"$(server_counters)"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  python3 - "$work/wrk" "$label" "$clock_ticks" "$user0" "$kernel0" "$switches0" "$user1" "$kernel1" "$switches1" $wrk_usage <<'PY'
import json, re, sys
label, ticks, u0, k0, c0, u1, k1, c1, wrk_seconds, wrk_switches = sys.argv[2], *map(float, sys.argv[3:])
result = json.loads(re.search(r"BENCH_RESULT (.*)", open(sys.argv[1]).read()).group(1))
n = result["requests"]
us = lambda seconds: seconds / n * 1e6
user, kernel, wrk = us((u1 - u0) / ticks), us((k1 - k0) / ticks), us(wrk_seconds)
print(f"{label:58.58s} {n / (result['duration_us'] / 1e6):8.0f} {user:6.1f} {kernel:6.1f} {wrk:6.1f} {user + kernel + wrk:6.1f}"
      f" {(c1 - c0) / n:6.2f} {wrk_switches / n:6.2f}")
PY
}

printf '%-58s %8s %6s %6s %6s %6s %6s %6s\n' "server: target" "req/s" "user" "kernel" "wrk" "total" "cs" "wrk cs"
printf '%-58s %8s %6s %6s %6s %6s %6s %6s\n' "" "" "µs/req" "µs/req" "µs/req" "µs/req" "/req" "/req"
start_server "$work/ceiling" --port 0
measure "ceiling: its own ~400-byte body" "Person({n})"
for target in "$@"; do
  cp "$db" "$work/db.sqlite"
  rm -f "$work/db.sqlite-wal" "$work/db.sqlite-shm"
  start_server "$gateway" serve --schema "$repo/Schema/CarDealer.edmx" --db "$work/db.sqlite" --port 0 --log-level error
  # The gateway's answer for one key, which the ceiling then serves for every request.
  sample=${target//\{n\}/7}
  python3 -c '
import sys, urllib.request
request = urllib.request.Request(sys.argv[1], headers={"Accept": "application/json"})
open(sys.argv[2], "wb").write(urllib.request.urlopen(request).read())
' "http://127.0.0.1:$port/CarDealer.svc/$sample" "$work/body"
  measure "gateway: $target" "$target"
  start_server "$work/ceiling" --body "$work/body" --port 0
  measure "ceiling: the gateway's $(wc -c <"$work/body")-byte answer" "$target"
done
