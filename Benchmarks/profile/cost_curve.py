#!/usr/bin/env python3
"""What a ratio to the ceiling allows a server to spend per request, measured on this machine.

    python3 Benchmarks/profile/cost_curve.py GATEWAY_BINARY DB [--rounds 2] [--duration 5]

The C ceiling (Benchmarks/ceiling) is run with --work-ns: before each answer it spins for that
long, a server costing that much more CPU per request than libmicrohttpd alone. Under the
benchmark's load (wrk, 2 threads, 16 connections, random Person keys) its requests/s over the
ceiling's without work is the ratio such a server reaches. In the same rounds the gateway answers
`Person({n})` and `Person?$top=20` from DB (a copy), and the script says where their ratios fall
on that curve: how many microseconds more than libmicrohttpd per request they behave like.

Each round measures every level and both targets once, each between two runs of the ceiling
without work, and takes its ratio to the mean of those two, as the benchmark does: the shared
machine's speed moves by a quarter within minutes. Measured ratios may rise a little with more
work; the work a ratio stands for is read from the curve made non-increasing (each ratio no
higher than the one before it). Prints one table; nothing is written.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (servers, wrk runs, the yardsticks' build: shared with the benchmark)

WORK_US = [0, 1, 2, 3, 4, 6, 8, 12]
TARGETS = [("Person({n})", 0.85), ("Person?$top=20", 0.60)]
PEOPLE = 1000


def ceiling_rps(ceiling, work_us, args, log_path):
    server = bench.Server(f"ceiling +{work_us} µs",
                          [ceiling, "--work-ns", str(work_us * 1000), "--port", "0", "--threads", "2"], log_path)
    try:
        result, _ = bench.run_wrk(server.url + "CarDealer.svc/", "get.lua", "Person({n})", PEOPLE, 16,
                                  args.duration, 2)
        return result["rps"]
    finally:
        server.stop()


def gateway_rps(path, args, work_dir, log_path):
    database = os.path.join(work_dir, "db.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)
    shutil.copyfile(args.db, database)
    server = bench.Server("gateway", [args.gateway, "serve", "--schema", os.path.join(bench.REPO_DIR, "Schema", "CarDealer.edmx"),
                                      "--db", database, "--port", "0", "--threads", "2", "--log-level", "error"], log_path)
    try:
        bench.run_wrk(server.url, "get.lua", path, PEOPLE, 16, 1, 2)  # warm-up: caches and statements
        result, _ = bench.run_wrk(server.url, "get.lua", path, PEOPLE, 16, args.duration, 2)
        return result["rps"]
    finally:
        server.stop()


def interpolate(points, ratio):
    """The work (µs) at which the measured curve (work, ratio), falling with work, reaches `ratio`."""
    for (work_a, ratio_a), (work_b, ratio_b) in zip(points, points[1:]):
        if ratio_a >= ratio >= ratio_b and ratio_a != ratio_b:
            return work_a + (ratio_a - ratio) / (ratio_a - ratio_b) * (work_b - work_a)
    return None


def main():
    parser = bench.profiling_arguments(__doc__)
    args = parser.parse_args()

    work_dir = tempfile.mkdtemp(prefix="cost-curve-")
    try:
        ceiling = bench.compile_yardstick("ceiling", work_dir)
        log_path = os.path.join(work_dir, "servers.log")
        curve = {work: [] for work in WORK_US}
        gateway = {path: [] for path, _ in TARGETS}
        for round_number in range(1, args.rounds + 1):
            bench.log(f"round {round_number} of {args.rounds}")
            # Each level, then each gateway target, as (where its results go, how to measure it).
            runs = [(curve[work], lambda work=work: ceiling_rps(ceiling, work, args, log_path)) for work in WORK_US[1:]]
            runs += [(gateway[path], lambda path=path: gateway_rps(path, args, work_dir, log_path)) for path, _ in TARGETS]
            before = ceiling_rps(ceiling, 0, args, log_path)
            for results, measure in runs:
                rps = measure()
                after = ceiling_rps(ceiling, 0, args, log_path)
                results.append((rps, rps / ((before + after) / 2)))
                curve[0].append((after, 1.0))
                before = after

        print(f"{'ceiling + work per request':<34} {'req/s by run':<26} ratio to the ceiling beside it (mean)")
        points = []
        for work in WORK_US:
            ratio = sum(r for _, r in curve[work]) / len(curve[work])
            runs = [rps for rps, _ in curve[work]]
            rates = ", ".join(f"{rps:,.0f}" for rps in runs) if work else f"{min(runs):,.0f} to {max(runs):,.0f}"
            print(f"{f'+{work} µs':<34} {rates:<26} {ratio:.2f}")
            points.append((work, min([ratio] + [r for _, r in points])))
        print()
        for path, target in TARGETS:
            ratio = sum(r for _, r in gateway[path]) / len(gateway[path])
            behaves = interpolate(points, ratio)
            allowed = interpolate(points, target)
            rounds = ", ".join(f"{r:.2f}" for _, r in gateway[path])
            print(f"gateway {path}: ratio {ratio:.2f} ({rounds}); like the ceiling + "
                  + (f"{behaves:.1f} µs" if behaves is not None else "(off the curve)")
                  + f". The target {target:.2f} allows + "
                  + (f"{allowed:.1f} µs" if allowed is not None else "(off the curve)"))
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
