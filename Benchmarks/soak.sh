#!/usr/bin/env bash
# The soak and fault check, in one command:
#   Benchmarks/soak.sh [--seconds 60] [--steps 1,2,3,4,5] [--rounds 10] [--max-connections 1024] ...
# Runs five steps against the real dealer-gateway on 127.0.0.1, each on a fresh database seeded
# from SeedData/ and a free port, and prints one line of figures per step and a total:
#   1 mixed reads at 64 connections (wrk) for --seconds;
#   2 mixed writes (POST, MERGE, DELETE, $batch change sets) and reads for --seconds, every
#     acknowledged write read back afterwards;
#   3 --rounds rounds of kill -9 under write load, every acknowledged write checked after each
#     restart, then SQLite's integrity and foreign-key checks;
#   4 a flood of 3 x the connection limit: held connections still answered, new ones answered or
#     refused within 2 s, the service answering after it, SIGTERM stopping it within 5 s;
#   5 a $batch of 40 GETs of Person?$expand=PersonCar/PersonCarMaintenance/Maintenance/
#     PersonCarMaintenance/PersonCar/Car: the gateway's RSS must grow by less than 64 MB.
# Exits non-zero when a step fails (an error, a lost write, a wedge), naming the steps. Every wait
# is bounded: a step that overruns has its gateway killed with SIGKILL and fails.
# Installs wrk when missing (apt-get). Builds the gateway with a plain `swift build -c release`:
# the soak checks behaviour under load, not speed, so the profile-guided LTO build of
# scripts/build-release (minutes longer) would buy nothing here, while a debug build would be
# too slow to load the service or to show release memory figures. Options of this script alone:
#   --scratch-path PATH   SwiftPM's build folder (default .build)
#   --gateway PATH        an already built dealer-gateway; skips `swift build`
# Every other option goes to Benchmarks/soak.py, whose options `--help` lists after these.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$BENCH_DIR")"
SCRATCH_PATH="$REPO_DIR/.build"
GATEWAY=""

SOAK_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scratch-path) SCRATCH_PATH="$2"; shift 2 ;;
        --scratch-path=*) SCRATCH_PATH="${1#*=}"; shift ;;
        --gateway) GATEWAY="$2"; shift 2 ;;
        --gateway=*) GATEWAY="${1#*=}"; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; echo
            exec python3 "$BENCH_DIR/soak.py" --help ;;
        *) SOAK_ARGS+=("$1"); shift ;;
    esac
done

# wrk drives step 1; the C libraries and python3 come with scripts/ensure-dependencies.
EXTRA_APT_PACKAGES=wrk "$REPO_DIR/scripts/ensure-dependencies" >&2

if [ -z "$GATEWAY" ]; then
    echo "building dealer-gateway (swift build -c release)" >&2
    (cd "$REPO_DIR" && swift build -c release --product dealer-gateway --scratch-path "$SCRATCH_PATH" >&2)
    GATEWAY="$(cd "$REPO_DIR" && swift build -c release --product dealer-gateway --scratch-path "$SCRATCH_PATH" --show-bin-path)/dealer-gateway"
fi

# soak.py replaces this shell, so Ctrl-C and SIGTERM reach it directly; its gateways get SIGKILL
# through PR_SET_PDEATHSIG should it die.
cd "$REPO_DIR"
exec python3 "$BENCH_DIR/soak.py" --gateway "$GATEWAY" ${SOAK_ARGS[@]+"${SOAK_ARGS[@]}"}
