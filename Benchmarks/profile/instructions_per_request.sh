#!/usr/bin/env bash
# Instructions the gateway executes per request, counted by valgrind's callgrind: repeatable
# whatever else the machine is doing, unlike requests per second on a shared machine.
#   Benchmarks/profile/instructions_per_request.sh [--warm] GATEWAY_BINARY DB 'Person(7)' ['Person?$top=20' ...]
# Prints one line per target: instructions per request over 300 keep-alive requests.
# "{n}" in a target is a Person key, a different one for each request (320 keys from 1 upward),
# so that each counted request is a target the gateway has not seen, as nearly all are at a
# million people; without it the target is repeated. With --warm, every counted target is
# requested once before counting, as in a 1,000-person benchmark run, where each worker sees each
# key many times and the parse cache (1,024 targets per worker) can keep them all.
# A binary named `ceiling` or `floor` (Benchmarks/ceiling, Benchmarks/floor) is run as that
# yardstick instead, so that all three are counted the same way.
set -euo pipefail
warm=0
if [ "${1:-}" = "--warm" ]; then warm=1; shift; fi
binary=${1:?gateway binary}; db=${2:?database}; shift 2
port=18199
schema=$(cd "$(dirname "$0")/../.." && pwd)/Schema/CarDealer.edmx
work=$(mktemp -d)
trap 'kill $(cat "$work/pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
# Valgrind 3.19 gives up on the debug information of swift-crypto's BoringSSL objects ("Possibly
# corrupted debuginfo file"); the counts need only the symbol table, so it runs a copy without.
strip --strip-debug -o "$work/$(basename "$binary")" "$binary"
binary="$work/$(basename "$binary")"
for target in "$@"; do
  cp "$db" "$work/db.sqlite"
  case "$(basename "$binary")" in
    ceiling) command=("$binary" --port $port --threads 1) ;;
    floor) command=("$binary" --db "$work/db.sqlite" --port $port --threads 1) ;;
    *) command=("$binary" serve --schema "$schema" --db "$work/db.sqlite" --port $port --threads 1 --log-level error) ;;
  esac
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/cg.out" "${command[@]}" >"$work/out" 2>"$work/err" &
  echo $! >"$work/pid"
  for _ in $(seq 1 120); do grep -q Serving "$work/out" 2>/dev/null && break; sleep 0.5; done
  # Before counting: 20 other keys, or with --warm also the 300 to be counted.
  python3 - "$port" "$target" $((warm ? 320 : 20)) <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for n in range(1, int(sys.argv[3]) + 1):
    c.request("GET", "/CarDealer.svc/" + sys.argv[2].replace("{n}", str(n)), headers={"Accept": "application/json"}); c.getresponse().read()
PY
  callgrind_control -i on "$(cat "$work/pid")" >/dev/null
  python3 - "$port" "$target" 300 <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for n in range(21, 21 + int(sys.argv[3])):
    c.request("GET", "/CarDealer.svc/" + sys.argv[2].replace("{n}", str(n)), headers={"Accept": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
PY
  callgrind_control -i off "$(cat "$work/pid")" >/dev/null
  # SIGTERM stops the gateway cleanly; callgrind then writes the counts of the instrumented part.
  kill "$(cat "$work/pid")"; wait "$(cat "$work/pid")" 2>/dev/null || true
  total=$(cat "$work"/cg.out* | awk '/^totals:/ {s+=$2} END {print s}')
  printf '%-70s %12d instructions/request\n' "$target" $((total / 300))
  rm -f "$work"/cg.out*
done
