#!/usr/bin/env bash
# The CarDealer benchmark, in one command:
#   Benchmarks/run.sh [--people 1000] [--duration 8] [--connections 16,64] [--growth] ...
#   Benchmarks/run.sh --database postgresql [--gateways 2] ...   (PostgreSQL beside SQLite)
# Installs wrk and libmicrohttpd-dev when missing (apt-get), builds the gateway for production
# (scripts/build-release: release mode, LTO, profile-guided) and the four C yardsticks
# (the libmicrohttpd ceiling, the floor of libmicrohttpd and SQLite for Person(n),
# Person?$top=20 and the blog's $expand without a gateway, the raw SQLite insert loop and the raw
# libpq insert loop), then
# runs Benchmarks/bench.py, which generates (or reuses) the data set, starts the servers on
# 127.0.0.1, drives them with wrk, prints a table and writes Benchmarks/results/<timestamp>.json.
# Every option is passed on to bench.py (see `Benchmarks/run.sh --help`), except two:
#   --scratch-path PATH   SwiftPM's build folder (default .build)
#   --gateway PATH        an already built dealer-gateway; skips `swift build`
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$BENCH_DIR")"
BIN_DIR="$BENCH_DIR/results/bin"
SCRATCH_PATH="$REPO_DIR/.build"
GATEWAY=""

BENCH_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scratch-path) SCRATCH_PATH="$2"; shift 2 ;;
        --scratch-path=*) SCRATCH_PATH="${1#*=}"; shift ;;
        --gateway) GATEWAY="$2"; shift 2 ;;
        --gateway=*) GATEWAY="${1#*=}"; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exec python3 "$BENCH_DIR/bench.py" --help \
            --gateway x --ceiling x --sqlite-insert x ;;
        *) BENCH_ARGS+=("$1"); shift ;;
    esac
done

need_packages=()
command -v wrk >/dev/null 2>&1 || need_packages+=(wrk)
pkg-config --exists libmicrohttpd 2>/dev/null || need_packages+=(libmicrohttpd-dev)
pkg-config --exists sqlite3 2>/dev/null || need_packages+=(libsqlite3-dev)
command -v pkg-config >/dev/null 2>&1 || need_packages+=(pkg-config)
command -v cc >/dev/null 2>&1 || need_packages+=(gcc)
pkg-config --exists libpq 2>/dev/null || need_packages+=(libpq-dev)
# The PostgreSQL mode starts a throw-away cluster (scripts/postgres-cluster: initdb, pg_ctl) and
# loads the data set with psql.
case " ${BENCH_ARGS[*]-} " in
    *" --database postgresql "*|*" --database=postgresql "*|*" --gateways "*|*" --gateways="*)
        if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
            need_packages+=(postgresql)
        fi
        command -v psql >/dev/null 2>&1 || need_packages+=(postgresql-client) ;;
esac
if [ ${#need_packages[@]} -gt 0 ]; then
    echo "installing ${need_packages[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >&2
fi

mkdir -p "$BIN_DIR"
echo "building the C ceiling, the C floor and the raw SQLite and libpq insert loops" >&2
cc -O2 -Wall -o "$BIN_DIR/ceiling" "$BENCH_DIR/ceiling/ceiling.c" $(pkg-config --cflags --libs libmicrohttpd)
cc -O2 -Wall -o "$BIN_DIR/floor" "$BENCH_DIR/floor/floor.c" $(pkg-config --cflags --libs libmicrohttpd sqlite3)
cc -O2 -Wall -o "$BIN_DIR/sqlite_insert" "$BENCH_DIR/sqlite_insert/sqlite_insert.c" $(pkg-config --cflags --libs sqlite3)
cc -O2 -Wall -o "$BIN_DIR/pg_insert" "$BENCH_DIR/pg_insert/pg_insert.c" $(pkg-config --cflags --libs libpq) -lpthread

if [ -z "$GATEWAY" ]; then
    echo "building dealer-gateway (release, LTO, profile-guided: scripts/build-release)" >&2
    # Built as a deployment would build it, so that the figures are the product's best.
    GATEWAY="$("$REPO_DIR/scripts/build-release" --scratch-path "$SCRATCH_PATH")"
fi
GATEWAY="$(cd "$(dirname "$GATEWAY")" && pwd)/$(basename "$GATEWAY")"

# bench.py replaces this shell, so Ctrl-C and SIGTERM reach it directly: it stops its servers in a
# finally block (its "trap"), and they also get SIGTERM through PR_SET_PDEATHSIG if it is killed.
cd "$REPO_DIR"
exec python3 "$BENCH_DIR/bench.py" --gateway "$GATEWAY" --ceiling "$BIN_DIR/ceiling" \
    --floor "$BIN_DIR/floor" --sqlite-insert "$BIN_DIR/sqlite_insert" --pg-insert "$BIN_DIR/pg_insert" ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}
