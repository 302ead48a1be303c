#!/usr/bin/env python3
"""What the scheduler does with wrk and a server sharing this machine's two cores.

    python3 Benchmarks/profile/scheduling.py GATEWAY_BINARY DB [--rounds 2] [--duration 3] [--target 'Person({n})']

Runs, each under the benchmark's load (wrk, 2 threads, 16 connections, DB a 1,000-person data
set): the C ceiling with 0 to 4 µs of spinning added per answer (--work-ns, as in cost_curve.py),
the C floor (Benchmarks/floor) and the gateway. For each it prints the requests/s, the CPU time
per request of the server and of wrk (user + system, from /proc and wrk's rusage), and the
context switches per request: the server's workers switched out while still runnable
(preempted) or because they waited (slept), and wrk's threads likewise.

Why: a server whose work per request outgrows wrk's leaves wrk's threads waiting for answers.
Each then sleeps, is woken by the next answer and, having slept, preempts the worker that sent
it: switches on a fifth of the requests or more instead of a few in a hundred, paid for by
both sides. The table shows at which added cost that starts and which side of it the floor and
the gateway are on; a server near the edge can fall on either side from one run to the next.
Prints one line per run; nothing is written.
"""

import os
import resource
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (servers, wrk runs, the yardsticks' build: shared with the benchmark)

WORK_US = [0, 1, 2, 3, 4]
PEOPLE = 1000
TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid):
    """User and system CPU seconds of every thread of `pid` so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


def thread_switches(pid):
    """Voluntary and involuntary context switches of every thread of `pid` so far."""
    voluntary = involuntary = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as status:
                for line in status:
                    if line.startswith("voluntary_ctxt_switches"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        involuntary += int(line.split()[1])
        except FileNotFoundError:
            continue  # a thread that ended between the listing and the read
    return voluntary, involuntary


def measure(name, command, target, duration, log_path):
    """One run of `command` under wrk after a 1 s warm-up: requests/s, CPU and switches per request."""
    server = bench.Server(name, command, log_path)
    # The gateway prints its service root; the C yardsticks print the server's root.
    root = server.url if name == "gateway" else server.url + "CarDealer.svc/"
    try:
        bench.run_wrk(root, "get.lua", target, PEOPLE, 16, 1, 2)  # warm-up
        user0, system0 = process_cpu_seconds(server.pid)
        voluntary0, involuntary0 = thread_switches(server.pid)
        # wrk is the only child reaped while it runs, so the children's rusage moves by its own.
        wrk0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        result, _ = bench.run_wrk(root, "get.lua", target, PEOPLE, 16, duration, 2)
        wrk1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        user1, system1 = process_cpu_seconds(server.pid)
        voluntary1, involuntary1 = thread_switches(server.pid)
    finally:
        server.stop()
    requests = result["requests"]
    if requests == 0 or result["non2xx"] or result["socket_errors"]:
        raise RuntimeError(f"{name}: {requests} requests, {result['non2xx']} answered with an error status, "
                           f"{result['socket_errors']} socket errors (log: {log_path})")
    per_request = lambda value: value / requests  # noqa: E731
    return {
        "rps": result["rps"],
        "server_us": per_request((user1 - user0 + system1 - system0) * 1e6),
        "wrk_us": per_request((wrk1.ru_utime - wrk0.ru_utime + wrk1.ru_stime - wrk0.ru_stime) * 1e6),
        "server_preempted": per_request(involuntary1 - involuntary0),
        "server_slept": per_request(voluntary1 - voluntary0),
        "wrk_preempted": per_request(wrk1.ru_nivcsw - wrk0.ru_nivcsw),
        "wrk_slept": per_request(wrk1.ru_nvcsw - wrk0.ru_nvcsw),
    }


def main():
    parser = bench.profiling_arguments(__doc__)
    parser.add_argument("--target", default="Person({n})",
                        help="the floor answers Person({n}), Person?$top=N and "
                             "Person({n})?$expand=PersonCar,PersonCar/Car")
    args = parser.parse_args()

    work_dir = tempfile.mkdtemp(prefix="scheduling-")
    try:
        binaries = {kind: bench.compile_yardstick(kind, work_dir) for kind in ("ceiling", "floor")}
        log_path = os.path.join(work_dir, "servers.log")
        database = os.path.join(work_dir, "db.sqlite")

        def fresh_database():
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(database + suffix):
                    os.remove(database + suffix)
            shutil.copyfile(args.db, database)
            return database

        # (label, a function giving the server's command), in the order each round runs them.
        servers = [(f"ceiling +{work} µs", lambda work=work: [binaries["ceiling"], "--work-ns", str(work * 1000),
                                                               "--port", "0", "--threads", "2"])
                   for work in WORK_US]
        servers.append(("floor", lambda: [binaries["floor"], "--db", fresh_database(), "--port", "0", "--threads", "2"]))
        servers.append(("gateway", lambda: [args.gateway, "serve", "--schema",
                                            os.path.join(bench.REPO_DIR, "Schema", "CarDealer.edmx"),
                                            "--db", fresh_database(), "--port", "0", "--threads", "2",
                                            "--log-level", "error"]))
        # The ceiling answers every target alike; the others are asked for the target itself.
        results = {label: [] for label, _ in servers}
        for round_number in range(1, args.rounds + 1):
            bench.log(f"round {round_number} of {args.rounds}")
            for label, command in servers:
                target = bench.CEILING_PATH if label.startswith("ceiling") else args.target
                results[label].append(measure(label, command(), target, args.duration, log_path))

        print(f"{args.target} (the ceiling: its fixed body), 16 connections, {args.rounds} rounds of "
              f"{args.duration} s; per request, each run (the regime can change from one run to the next):")
        print(f"{'':<16} {'round':>5} {'req/s':>9} {'server µs':>10} {'wrk µs':>8}   {'server preempted':>16} "
              f"{'server slept':>12}   {'wrk preempted':>13} {'wrk slept':>9}")
        for label, _ in servers:
            for round_number, run in enumerate(results[label], start=1):
                print(f"{label:<16} {round_number:>5} {run['rps']:>9,.0f} {run['server_us']:>10.1f} "
                      f"{run['wrk_us']:>8.1f}   {run['server_preempted']:>16.3f} {run['server_slept']:>12.3f}   "
                      f"{run['wrk_preempted']:>13.3f} {run['wrk_slept']:>9.3f}")
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
