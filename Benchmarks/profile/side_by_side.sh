#!/usr/bin/env bash
# The gateway, the C floor and the C ceiling in turn, round after round, on one target:
#   Benchmarks/profile/side_by_side.sh [--rounds N] [--seconds S] GATEWAY_BINARY DB 'Person({n})'
# A full run (Benchmarks/run.sh) puts each gateway run between two ceiling runs, and this machine
# moves between runs (its ceiling by a quarter within one run). Here every round runs all three,
# each a fresh process on a fresh copy of DB for S seconds (default 3) at 16 connections after a
# 1 s warm-up, and the ratios at the end are sums over all rounds (default 5): the modes the
# machine falls into are shared out among the three servers rather than decided by one draw.
# "{n}" is a random Person key, as in the benchmark. The floor answers only Person(n),
# Person?$top=N and Person(n)?$expand=PersonCar,PersonCar/Car (Benchmarks/floor/floor.c).
# Needs wrk, a C compiler, libmicrohttpd-dev and libsqlite3-dev (Benchmarks/run.sh installs them).
set -euo pipefail
rounds=5
seconds=3
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    *) break ;;
  esac
done
gateway=${1:?gateway binary}; db=${2:?database}; target=${3:?target, e.g. 'Person({n})'}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -o "$work/ceiling" "$repo/Benchmarks/ceiling/ceiling.c" $(pkg-config --cflags --libs libmicrohttpd)
cc -O2 -o "$work/floor" "$repo/Benchmarks/floor/floor.c" $(pkg-config --cflags --libs libmicrohttpd sqlite3)

# Starts the server of `kind` on a fresh copy of the database, loads it with wrk and prints its
# requests/s.
run() {
  local kind=$1
  cp "$db" "$work/db.sqlite"
  rm -f "$work/db.sqlite-wal" "$work/db.sqlite-shm"
  case $kind in
    gateway) "$gateway" serve --schema "$repo/Schema/CarDealer.edmx" --db "$work/db.sqlite" --port 0 --log-level error >"$work/out" 2>&1 & ;;
    floor) "$work/floor" --db "$work/db.sqlite" --port 0 >"$work/out" 2>&1 & ;;
    ceiling) "$work/ceiling" --port 0 >"$work/out" 2>&1 & ;;
  esac
  server_pid=$!
  for _ in $(seq 1 100); do grep -q Serving "$work/out" 2>/dev/null && break; sleep 0.1; done
  local port
  port=$(grep -o 'Serving http://127.0.0.1:[0-9]*' "$work/out" | grep -o '[0-9]*$')
  (
    cd "$repo/Benchmarks/wrk"
    export BENCH_WRK_DIR="$PWD" BENCH_PATH="$target" BENCH_PEOPLE=1000
    wrk -t2 -c16 -d1s -s get.lua "http://127.0.0.1:$port/CarDealer.svc/" >/dev/null 2>&1
    wrk -t2 -c16 -d"${seconds}s" -s get.lua "http://127.0.0.1:$port/CarDealer.svc/" 2>&1 \
      | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p'
  )
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

echo "$target, 16 connections, $rounds rounds of ${seconds} s, requests/s:"
printf '%-6s %10s %10s %10s\n' round gateway floor ceiling
results=""
for round in $(seq 1 "$rounds"); do
  line="$round"
  for kind in gateway floor ceiling; do line="$line $(run $kind)"; done
  printf '%-6s %10.0f %10.0f %10.0f\n' $line
  results="$results$line"$'\n'
done
printf '%s' "$results" | awk '
  { g += $2; f += $3; c += $4 }
  END { printf "gateway x ceiling %.2f, floor x ceiling %.2f, gateway x floor %.2f (sums over the rounds)\n", g / c, f / c, g / f }'
