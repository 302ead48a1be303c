#!/usr/bin/env python3
"""Drive the CarDealer benchmark: data set, C ceiling, gateway, wrk, results.

Normally started by Benchmarks/run.sh, which installs wrk and libmicrohttpd-dev, builds the gateway
in release mode and the small C programs, then runs this script. Everything talks to 127.0.0.1
only; every load run is bounded in time; the servers are stopped on exit (and, through
PR_SET_PDEATHSIG, even if this script is killed).

Default mode: every scenario at each connection count, each figure also as a ratio to the
libmicrohttpd ceiling measured in the same run (the mean of the ceiling runs just before and just
after each gateway run), plus the raw SQLite insert rate for the write target, and for Person(n),
Person?$top=20 and the blog's $expand the C floor (--floor): libmicrohttpd and SQLite answering
them alone, which shows how much of the distance to the ceiling any server reading SQLite must
keep. With --database postgresql every scenario also runs, right after SQLite's, against a gateway
serving a throw-away PostgreSQL cluster loaded with the same data set, each read beside its
statements alone (the gateway's statements for it run by pgbench: the most a read that waits for
its own round trip could reach on the machine), its POST compared with a raw libpq insert loop; with --gateways 2 also
against two gateways on that one database. Growth mode
(--growth): the same read scenarios at a small and a large scale, and peak RSS
while a client pages through the whole Person set. With --rounds N the whole sequence runs N times and each figure
is the median of its N side-by-side runs, printed with their range.
"""

import argparse
import ctypes
import datetime
import http.client
import json
import os
import platform
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_data  # noqa: E402
import postgres  # noqa: E402
import proc_memory  # noqa: E402  (the generator lives next to this script)

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
WRK_DIR = os.path.join(BENCH_DIR, "wrk")

# name (the request, as the issue writes it), wrk script, BENCH_PATH ("{n}" = a random generated
# person, already percent-encoded), kind
FILTER_LAST_NAME = "Samson"
SCENARIOS = [
    ("Person(n)", "get.lua", "Person({n})", "read"),
    ("Person?$top=20", "get.lua", "Person?$top=20", "read"),
    ("Person(n)?$expand=PersonCar,PersonCar/Car", "get.lua",
     "Person({n})?$expand=PersonCar,PersonCar/Car", "read"),
    (f"Person?$filter=lastName eq '{FILTER_LAST_NAME}'&$orderby=firstName&$top=20"
     "&$inlinecount=allpages", "get.lua",
     f"Person?$filter=lastName%20eq%20'{FILTER_LAST_NAME}'&$orderby=firstName&$top=20"
     "&$inlinecount=allpages", "read"),
    ("PersonCarMaintenance?$filter=PersonCar/Car/make eq 'Ford'&$top=50&$expand=Maintenance",
     "get.lua",
     "PersonCarMaintenance?$filter=PersonCar/Car/make%20eq%20'Ford'&$top=50&$expand=Maintenance",
     "read"),
    ("POST Person", "post_person.lua", "", "write"),
    ("MERGE Person(n)", "merge_person.lua", "", "write"),
    ("$batch of 10 changes (one changeset)", "batch.lua", "", "write"),
]
# The C floor (Benchmarks/floor/floor.c) answers these scenarios only: libmicrohttpd and SQLite
# doing what any server must do for them, with no gateway in between. Each is run right after
# the gateway's, under the name given here.
FLOOR_SCENARIOS = {
    "Person(n)": "C floor: Person(n) without a gateway",
    "Person?$top=20": "C floor: Person?$top=20 without a gateway",
    SCENARIOS[2][0]: "C floor: $expand without a gateway",
}
FLOOR_OF = {floor: scenario for scenario, floor in FLOOR_SCENARIOS.items()}
# Shorter names for the printed table; the legend under it gives the full requests.
LABELS = {
    SCENARIOS[3][0]: "Person?$filter&$orderby&$top&$inlinecount",
    SCENARIOS[4][0]: "PersonCarMaintenance?$filter&$top&$expand",
}
LABEL_WIDTH = 44

# With --database postgresql each scenario also runs on a gateway serving PostgreSQL, and with
# --gateways 2 on two gateways serving that one database; their rows are named with a suffix.
ENGINE_SUFFIXES = {"sqlite": "", "postgresql": " [PG]", "postgresql-gateways": " [PG 2gw]"}


def engine_name(name, engine):
    return name + ENGINE_SUFFIXES[engine]


def label(name):
    for suffix in ENGINE_SUFFIXES.values():
        if suffix and name.endswith(suffix):
            base = name[:-len(suffix)]
            return LABELS.get(base, base)[:LABEL_WIDTH - len(suffix)] + suffix
    return LABELS.get(name, name)[:LABEL_WIDTH]


CEILING_PATH = "Person({n})"
BATCH_SCRIPT = "batch.lua"
POST_SCRIPT = "post_person.lua"
BATCH_CHANGES = 10

# Targets of issue 6 (2 cores, 1000 people, 16 connections, ratio to the ceiling).
RATIO_TARGETS = [
    ("Person(n)", 0.85),
    ("Person?$top=20", 0.60),
    ("Person(n)?$expand=PersonCar,PersonCar/Car", 0.50),
    (SCENARIOS[3][0], 0.40),
]
P99_TARGET_MS = 10.0
POST_TO_SQLITE_TARGET = 0.5
# Issue 34's goals for PostgreSQL: its reads at half of SQLite's or better, its POST at half of
# raw libpq's one-row commits, and two gateways on one database at least as fast as one.
POSTGRES_READ_TARGET = 0.5
POST_TO_LIBPQ_TARGET = 0.5
GATEWAYS_TARGET = 1.0
GROWTH_TARGET = 1.5
PAGING_RSS_TARGET_MB = 100
LOG_LIMIT_BYTES = 4 << 20


def log(message):
    print(message, file=sys.stderr, flush=True)


# The C yardsticks under Benchmarks/<name>/<name>.c and the libraries each links (as run.sh builds them).
YARDSTICK_LIBRARIES = {"ceiling": ["libmicrohttpd"], "floor": ["libmicrohttpd", "sqlite3"]}


def compile_yardstick(name, directory):
    """Builds the C yardstick `name` into `directory` for the profiling scripts; returns its path."""
    binary = os.path.join(directory, name)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs"] + YARDSTICK_LIBRARIES[name], check=True,
                           capture_output=True, text=True).stdout.split()
    subprocess.run(["cc", "-O2", "-Wall", "-o", binary, os.path.join(BENCH_DIR, name, f"{name}.c")] + flags,
                   check=True)
    return binary


def profiling_arguments(doc):
    """The command line the profiling scripts share: a gateway binary, a 1,000-person data set,
    rounds and seconds per wrk run; each script adds its own options."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("gateway")
    parser.add_argument("db", help="a 1,000-person data set (Benchmarks/generate_data.py)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--duration", type=int, default=3, help="seconds of each wrk run")
    return parser


def die_with_parent():
    """Runs in each child before exec: it receives SIGTERM if this script dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Server:
    """A server process that prints one 'Serving http://...' line once it listens."""

    def __init__(self, name, command, log_path, startup_timeout=120):
        self.name = name
        self.command = command
        self.log_path = log_path
        self.log_file = open(log_path, "ab")
        self.log_lock = threading.Lock()
        self.log_bytes = self.dropped_log_bytes = 0
        log(f"starting {name}: {' '.join(command)}")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, preexec_fn=die_with_parent,
                                        cwd=REPO_DIR)
        self.pid = self.process.pid
        lines = queue.Queue()
        self.drains = [threading.Thread(target=self._drain_stdout, args=(lines,), daemon=True),
                       threading.Thread(target=self._drain_stderr, daemon=True)]
        for drain in self.drains:
            drain.start()
        deadline = time.monotonic() + startup_timeout
        self.url = None
        while self.url is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.stop()
                raise RuntimeError(f"{name} printed no 'Serving' line within {startup_timeout}s "
                                   f"(log: {log_path})")
            try:
                line = lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if self.process.poll() is not None:
                    raise RuntimeError(f"{name} exited with status {self.process.returncode} "
                                       f"before listening (log: {log_path})")
                continue
            if line is None:
                continue
            match = re.match(r"Serving (http://\S+)", line)
            if match:
                self.url = match.group(1)
        parsed = urllib.parse.urlsplit(self.url)
        self.host, self.port, self.root_path = parsed.hostname, parsed.port, parsed.path
        log(f"{name} is serving {self.url} (pid {self.pid})")

    def _drain_stdout(self, lines):
        for raw in self.process.stdout:
            text = raw.decode("utf-8", "replace").rstrip("\n")
            lines.put(text)
            self._write_log(raw)
        lines.put(None)

    def _drain_stderr(self):
        """Keeps the log bounded: a gateway that logs every failing request under load would
        otherwise write hundreds of megabytes."""
        descriptor = self.process.stderr.fileno()
        while True:
            chunk = os.read(descriptor, 65536)
            if not chunk:
                break
            self._write_log(chunk)

    def _write_log(self, data):
        with self.log_lock:
            if self.log_bytes + len(data) <= LOG_LIMIT_BYTES:
                self.log_file.write(data)
                self.log_file.flush()
                self.log_bytes += len(data)
            else:
                self.dropped_log_bytes += len(data)

    def status(self):
        """VmHWM and VmRSS in kB, from /proc, and VmRSS's parts: RssAnon (the process's own
        memory) and RssFile (mapped files: code, and database pages that reads map)."""
        return proc_memory.status_fields(self.pid, ("VmHWM", "VmRSS", "RssAnon", "RssFile"))

    def reset_peak_rss(self):
        return proc_memory.reset_peak_rss(self.pid)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for drain in self.drains:
            drain.join(timeout=5)
        with self.log_lock:
            if not self.log_file.closed:
                if self.dropped_log_bytes:
                    self.log_file.write(f"[bench.py: {self.dropped_log_bytes} more bytes of log "
                                        f"dropped]\n".encode())
                self.log_file.close()


class Servers:
    """Every server started, so that all of them are stopped however the run ends."""

    def __init__(self):
        self.running = []
        # Run once every server is stopped (the PostgreSQL cluster, which the gateways use).
        self.cleanups = []

    def start(self, *args, **kwargs):
        server = Server(*args, **kwargs)
        self.running.append(server)
        return server

    def stop(self, server):
        server.stop()
        if server in self.running:
            self.running.remove(server)

    def stop_all(self):
        for server in reversed(self.running):
            server.stop()
        self.running.clear()
        while self.cleanups:
            self.cleanups.pop()()


def run_wrk(url, script, path, people, connections, duration, threads, probe=False):
    env = dict(os.environ, BENCH_WRK_DIR=WRK_DIR, BENCH_PATH=path, BENCH_PEOPLE=str(people))
    if probe:
        env["BENCH_PROBE"] = "1"
        command = ["wrk", "-t1", "-c1", "-d1s", "--timeout", "10s"]
    else:
        command = ["wrk", f"-t{min(threads, connections)}", f"-c{connections}",
                   f"-d{duration}s", "--timeout", "5s"]
    command += ["-s", os.path.join(WRK_DIR, script), url]
    completed = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=(duration if not probe else 1) + 60,
                               preexec_fn=die_with_parent)
    result, probes = None, []
    for line in completed.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            result = json.loads(line[len("BENCH_RESULT "):])
        elif line.startswith("BENCH_PROBE "):
            try:
                probes.append(json.loads(line[len("BENCH_PROBE "):]))
            except ValueError:
                probes.append({"status": 0, "body": line[12:300]})
    if result is None:
        raise RuntimeError(f"wrk gave no result (exit {completed.returncode}): "
                           f"{completed.stdout[-500:]}{completed.stderr[-500:]}")
    seconds = result["duration_us"] / 1e6
    result["rps"] = result["requests"] / seconds if seconds > 0 else 0.0
    result["socket_errors"] = (result["connect_errors"] + result["read_errors"]
                               + result["write_errors"] + result["timeouts"])
    return result, probes


def ceiling_run(ceiling, args, connections, duration):
    result, _ = run_wrk(ceiling.url + "CarDealer.svc/", "get.lua", CEILING_PATH, args.people,
                        connections, duration, args.wrk_threads)
    return {"rps": result["rps"], "p50_us": result["p50_us"], "p99_us": result["p99_us"],
            "seconds": result["duration_us"] / 1e6}


def summarize_ceiling(runs_by_connections):
    summary = {}
    for connections, runs in sorted(runs_by_connections.items()):
        summary[connections] = {
            "rps": sum(r["rps"] for r in runs) / len(runs),
            "rpsMin": min(r["rps"] for r in runs), "rpsMax": max(r["rps"] for r in runs),
            "p50_us": median([r["p50_us"] for r in runs]),
            "p99_us": median([r["p99_us"] for r in runs]),
            "runs": len(runs),
        }
    return summary


def probe_summary(probes, batch=False):
    """The probe's verdict: ok when every status seen is 2xx, and for a $batch when the
    operations inside its answer were answered 2xx too."""
    failures = [p for p in probes if not 200 <= p["status"] < 300]
    if batch:
        failures += [p for p in probes
                     if not p.get("inner") or any(not 200 <= c < 300 for c in p["inner"])]
    note = ""
    if not probes:
        note = "no response to the probe"
    elif failures:
        first = failures[0]
        body = re.sub(r"\s+", " ", first["body"])[:160]
        inner = f" (inside: {', '.join(map(str, first['inner']))})" if first.get("inner") else ""
        if batch and 200 <= first["status"] < 300 and not first.get("inner"):
            inner = " (no operation answered inside)"
        note = f"HTTP {first['status']}{inner}: {body}"
    return {"statuses": sorted({p["status"] for p in probes}), "ok": bool(probes) and not failures,
            "note": note, "responses": probes}


def probe(gateway, name, script, path, people):
    """One connection, about 20 requests: the statuses the scenario really gets, and why."""
    _, probes = run_wrk(gateway.url, script, path, people, 1, 1, 1, probe=True)
    summary = probe_summary(probes, batch=script == BATCH_SCRIPT)
    if not summary["ok"]:
        log(f"  {name}: probe got {summary['note'] or summary['statuses']}")
    return summary


def measure(gateway, script, path, people, connections, duration, args):
    """One load run of the gateway, with its peak RSS during that run."""
    reset = gateway.reset_peak_rss()
    result, _ = run_wrk(gateway.url, script, path, people, connections, duration,
                        args.wrk_threads)
    count_batch_operations(result, script)
    result.update(connections=connections, peak_rss_kb=gateway.status().get("VmHWM"),
                  peak_rss_scope="run" if reset else "process")
    if not gateway.alive():
        raise RuntimeError(f"{gateway.name} exited during {script} {path} "
                           f"(log: {gateway.log_path})")
    return result


def probe_each(gateways, name, script, path, people):
    """The probe of every gateway behind one scenario: ok only when each of them is."""
    summaries = [probe(gateway, name, script, path, people) for gateway in gateways]
    failing = [summary for summary in summaries if not summary["ok"]]
    return {"statuses": sorted({status for summary in summaries for status in summary["statuses"]}),
            "ok": not failing, "note": failing[0]["note"] if failing else "",
            "responses": [response for summary in summaries for response in summary["responses"]]}


def measure_split(gateways, script, path, people, connections, duration, args):
    """One load run of several gateways on one database: wrk cannot balance, so one wrk per
    gateway runs at the same time, the connections and wrk's threads shared out between them
    (the load generator gets the same connections and threads as against one gateway). Requests
    and errors are their sums, requests/s the sum of each one's, latency the worst of theirs."""
    count = len(gateways)
    shares = [connections // count + (1 if i < connections % count else 0) for i in range(count)]
    wrk_threads = max(1, args.wrk_threads // count)
    for gateway in gateways:
        gateway.reset_peak_rss()
    results = [None] * count
    failures = []

    def drive(index):
        try:
            results[index], _ = run_wrk(gateways[index].url, script, path, people, shares[index],
                                        duration, wrk_threads)
            count_batch_operations(results[index], script)
        except (RuntimeError, subprocess.SubprocessError, OSError) as error:
            failures.append(error)

    drivers = [threading.Thread(target=drive, args=(i,)) for i in range(count)]
    for driver in drivers:
        driver.start()
    for driver in drivers:
        driver.join()
    if failures:
        raise RuntimeError(f"wrk against {count} gateways: {failures[0]}")
    combined = {key: sum(r[key] for r in results)
                for key in ("requests", "non2xx", "non2xx_responses", "socket_errors")}
    combined.update(rps=sum(r["rps"] for r in results),
                    duration_us=max(r["duration_us"] for r in results),
                    p50_us=max(r["p50_us"] for r in results), p99_us=max(r["p99_us"] for r in results),
                    connections=connections, peak_rss_kb=max(g.status().get("VmHWM") or 0 for g in gateways) or None,
                    peak_rss_scope="run", gateways=[{"connections": share, "rps": r["rps"],
                                                     "non2xx": r["non2xx"], "socket_errors": r["socket_errors"]}
                                                    for share, r in zip(shares, results)])
    for gateway in gateways:
        if not gateway.alive():
            raise RuntimeError(f"{gateway.name} exited during {script} {path} (log: {gateway.log_path})")
    return combined


def run_ok(result, probe_result):
    return (probe_result["ok"] and result["non2xx"] == 0 and result["socket_errors"] == 0
            and result["requests"] > 0)


def count_batch_operations(result, script):
    """A $batch answered 202 may still carry failed operations: those count as non-2xx."""
    result["non2xx_responses"] = result["non2xx"]
    if script == BATCH_SCRIPT:
        result["non2xx"] += result["inner_failures"]
        if result["inner_ok"] == 0 and result["inner_failures"] == 0:
            result["non2xx"] += result["requests"]  # nothing inside was answered


def prepare_database(args, people):
    os.makedirs(args.data_dir, exist_ok=True)
    cached = os.path.join(args.data_dir, f"people-{people}.sqlite")
    counts, seconds = generate_data.generate_cached(cached, people, args.seed, args.gateway,
                                                    args.schema)
    working = os.path.join(args.data_dir, f"run-people-{people}.sqlite")
    remove_database(working)
    shutil.copyfile(cached, working)
    return working, {"people": people, "seed": args.seed, "rows": counts,
                     "generationSeconds": round(seconds, 1) or None}


def remove_database(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


class RawInserts:
    """A raw one-row insert loop, the yardstick of the POST runs it is compared with. fsync times
    on a shared disk swing a hundredfold within seconds, so it runs for --sqlite-seconds right
    before and right after each of them, like the ceiling around every run. Each engine's loop
    names its program, its command line and the settings it reports."""

    engine = ""
    program = ""

    def __init__(self, args):
        self.args = args
        self.runs = []

    def command(self):
        raise NotImplementedError

    def settings(self, result):
        """The settings a run reports, as kept in the summary."""
        raise NotImplementedError

    def run(self):
        completed = subprocess.run(self.command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   timeout=self.args.sqlite_seconds + 60, preexec_fn=die_with_parent)
        if completed.returncode != 0:
            raise RuntimeError(f"{self.program} failed: {completed.stderr.strip()}")
        result = json.loads(completed.stdout)
        self.runs.append(result)
        settings = ", ".join(f"{name} {value}" for name, value in self.settings(result).items())
        log(f"  raw {self.engine}: {result['rowsPerSecond']:.0f} one-row transactions/s ({settings})")
        return result

    def summary(self):
        rates = [r["rowsPerSecond"] for r in self.runs]
        if not rates:
            return None
        return {"rowsPerSecond": sum(rates) / len(rates), "min": min(rates), "max": max(rates),
                "runs": self.runs, **self.settings(self.runs[0])}


class RawSQLite(RawInserts):
    """The raw SQLite insert loop (Benchmarks/sqlite_insert) on a scratch copy of the data set,
    in the data folder (the gateway's disk)."""

    engine = "SQLite"
    program = "sqlite_insert"

    def __init__(self, args, database):
        super().__init__(args)
        self.scratch = os.path.join(args.data_dir, "sqlite-insert-scratch.sqlite")
        remove_database(self.scratch)
        shutil.copyfile(database, self.scratch)

    def command(self):
        args = self.args
        return [args.sqlite_insert, "--db", self.scratch, "--seconds", str(args.sqlite_seconds),
                "--synchronous", args.synchronous, "--journal", args.journal]

    def settings(self, result):
        return {"journal": result["journal"], "synchronous": result["synchronous"]}

    def remove(self):
        remove_database(self.scratch)


class RawLibpq(RawInserts):
    """The raw libpq insert loop (Benchmarks/pg_insert) on a scratch database of the benchmark's
    cluster, a copy of the data set's: by default with as many connections as a gateway has
    workers (each worker holds one connection, so a gateway never has more commits in flight),
    or --libpq-connections."""

    engine = "libpq"
    program = "pg_insert"

    def __init__(self, args, url):
        super().__init__(args)
        self.url = url

    def command(self):
        args = self.args
        return [args.pg_insert, "--database", self.url, "--seconds", str(args.sqlite_seconds),
                "--connections", str(args.libpq_connections or args.threads)]

    def settings(self, result):
        return {"connections": result["connections"], "synchronousCommit": result["synchronousCommit"]}


def start_gateway(servers, args, database, label, threads=None):
    """A gateway on the SQLite file `database`, or on the PostgreSQL database it names when it is
    a postgresql:// URI, with `threads` workers (default --threads)."""
    store = ["--database", database] if database.startswith("postgresql://") else ["--db", database]
    command = [args.gateway, "serve", "--schema", args.schema, "--seed", args.seed_dir] + store + [
               "--host", "127.0.0.1", "--port", "0", "--threads", str(threads or args.threads)]
    if args.gateway_log_level:
        command += ["--log-level", args.gateway_log_level]
    return servers.start(f"gateway ({label})", command,
                         os.path.join(args.results_dir, f"{args.stamp}-gateway-{label}.log"))


def start_postgres(servers, args, database):
    """A throw-away cluster with the data set of the SQLite file `database` loaded into database
    `bench`, and `bench_insert`, a copy of it for the raw libpq insert loop; the cluster is
    stopped once the servers are. Returns the cluster, the two URIs and the rows loaded."""
    log("starting a PostgreSQL cluster (scripts/postgres-cluster)")
    cluster = postgres.Cluster(os.path.join(args.results_dir, "postgres"))
    servers.cleanups.append(cluster.stop)
    url = cluster.create_database("bench")
    started = time.monotonic()
    counts = postgres.load_dataset(database, url, args.gateway, args.schema)
    log(f"loaded the data set into {url} in {time.monotonic() - started:.1f}s: "
        + ", ".join(f"{table} {count}" for table, count in counts.items()))
    # A template must have no connections: copied before any gateway connects.
    postgres.psql(cluster.server_url, 'CREATE DATABASE "bench_insert" TEMPLATE "bench"')
    return cluster, url, cluster.database_url("bench_insert"), counts


def capture_postgres_read(cluster, gateway, path, people):
    """The statements a PostgreSQL gateway runs for one GET of `path` ("{n}": a person in the
    middle of the data set), for `run_postgres_alone`."""
    url = f"http://{gateway.host}:{gateway.port}{gateway.root_path}{path.replace('{n}', str(max(1, people // 2)))}"
    read = postgres.capture_get(cluster.server_url, "bench", cluster.log_path, url)
    log(f"  {path}: the gateway's statements alone are {len(read.statements)} statement(s)")
    return read


def run_postgres_alone(scenario, scenarios, result, url, args):
    """The yardstick of a PostgreSQL read (postgres.py): its statements through pgbench, with
    as many connections as the gateway has workers, right after the gateway's run; its rate,
    and that rate over SQLite's for the same read in the same round at the same connections."""
    path = os.path.join(args.results_dir, f"{args.stamp}-pgbench.sql")
    rate = postgres.run_pgbench(url, scenario["alone"], args.threads, max(1, round(args.sqlite_seconds)), path)
    sqlite_rate = next((run["rps"] for other in scenarios if other["name"] == scenario["sqliteName"]
                        for run in other["runs"] if run["round"] == result["round"]
                        and run["connections"] == result["connections"] and run["ok"]), None)
    ratio = rate / sqlite_rate if sqlite_rate else None
    log(f"  the gateway's statements alone (pgbench): {rate:.0f} reads/s"
        + (f", {ratio:.2f} x SQLite's req/s" if ratio else ""))
    return {"readsPerSecond": rate, "ratio": ratio, "clients": args.threads}


def start_floor(servers, args, database):
    command = [args.floor, "--db", database, "--host", "127.0.0.1", "--port", "0",
               "--threads", str(args.threads)]
    return servers.start("floor", command, os.path.join(args.results_dir, f"{args.stamp}-floor.log"))


def start_ceiling(servers, args):
    command = [args.ceiling, "--host", "127.0.0.1", "--port", "0", "--threads", str(args.threads)]
    return servers.start("ceiling", command,
                         os.path.join(args.results_dir, f"{args.stamp}-ceiling.log"))


# ---------------------------------------------------------------- default mode

def benchmark(args, servers):
    """Every scenario at every connection count; each gateway run sits between two ceiling runs
    at the same connection count, and its ratio is to their mean, so that the drift of a shared
    machine cancels out as far as it can."""
    database, dataset = prepare_database(args, args.people)
    raw_sqlite = RawSQLite(args, database)
    engines = ["sqlite"]
    raw_libpq = None
    postgres_gateways = []
    postgres_gateway = None
    postgres_rows = None
    if args.database == "postgresql":
        cluster, url, insert_url, postgres_rows = start_postgres(servers, args, database)
        raw_libpq = RawLibpq(args, insert_url)
        engines.append("postgresql")
        if args.gateways > 1:
            engines.append("postgresql-gateways")

    ceiling = start_ceiling(servers, args)
    gateway = start_gateway(servers, args, database, f"{args.people}")
    if args.database == "postgresql":
        postgres_gateways = [start_gateway(servers, args, url, f"postgresql-{index + 1}",
                                           args.threads_per_gateway) for index in range(args.gateways)]
        # The [PG] rows' one gateway: the first of the set when it has --threads workers, else
        # one of its own.
        postgres_gateway = (postgres_gateways[0] if args.threads_per_gateway == args.threads
                            else start_gateway(servers, args, url, "postgresql", args.threads))
    idle_rss = gateway.status()
    ceiling_run(ceiling, args, 16, 1)  # warm-up

    plan = [entry for entry in SCENARIOS
            if not args.scenarios or any(s.lower() in entry[0].lower() for s in args.scenarios)]
    floor = None
    floor_database = None
    if args.floor and any(entry[0] in FLOOR_SCENARIOS for entry in plan):
        # A copy of its own, so that the gateway's write scenarios and the floor's reads never
        # share a WAL: each server's figures are its own file's.
        floor_database = os.path.join(args.data_dir, "floor-scratch.sqlite")
        remove_database(floor_database)
        shutil.copyfile(database, floor_database)
        floor = start_floor(servers, args, floor_database)
    # Each scenario on SQLite, then its floor, then on PostgreSQL (one gateway, then two), so
    # that the runs compared with each other are minutes apart at most.
    plan = [engined for name, script, path, kind in plan
            for engined in ([(name, script, path, kind, "sqlite")]
                            + ([(FLOOR_SCENARIOS[name], script, path, "floor", "sqlite")]
                               if floor and name in FLOOR_SCENARIOS else [])
                            + [(engine_name(name, engine), script, path, kind, engine)
                               for engine in engines[1:]])]
    server_of = {"sqlite": gateway, "postgresql": postgres_gateway,
                 "postgresql-gateways": postgres_gateways}
    scenarios = []
    log("probing every scenario")
    for name, script, path, kind, engine in plan:
        server = floor if kind == "floor" else server_of[engine]
        probed = (probe_each(server, name, script, path, args.people) if isinstance(server, list)
                  else probe(server, name, script, path, args.people))
        scenario = {"name": name, "kind": kind, "engine": engine, "path": path or None,
                    "script": script, "server": server, "probe": probed, "runs": []}
        if kind == "floor":
            scenario["floorOf"] = FLOOR_OF[name]
        if engine != "sqlite":
            scenario["sqliteName"] = name[:-len(ENGINE_SUFFIXES[engine])]
        if engine == "postgresql" and kind == "read" and probed["ok"]:
            scenario["alone"] = capture_postgres_read(cluster, server, path, args.people)
        scenarios.append(scenario)
    ceiling_runs = {}
    # Rounds repeat the whole sequence, so that each scenario's runs are spread over the run's
    # time rather than taken back to back, and each is still side by side with its ceilings.
    for round_number in range(1, args.rounds + 1):
        for connections in args.connections:
            before = ceiling_run(ceiling, args, connections, args.ceiling_duration)
            ceiling_runs.setdefault(connections, []).append(before)
            for scenario in scenarios:
                of_rounds = f", round {round_number} of {args.rounds}" if args.rounds > 1 else ""
                log(f"{scenario['name']}, {connections} connections{of_rounds}")
                # POST on SQLite is compared with raw SQLite's commits, on PostgreSQL (one
                # gateway) with raw libpq's.
                raw = {"sqlite": raw_sqlite, "postgresql": raw_libpq}.get(scenario["engine"])
                compare_raw = scenario["script"] == POST_SCRIPT and raw is not None
                raw_before = raw.run() if compare_raw else None
                if isinstance(scenario["server"], list):
                    result = measure_split(scenario["server"], scenario["script"], scenario["path"] or "",
                                           args.people, connections, args.duration, args)
                else:
                    result = measure(scenario["server"], scenario["script"], scenario["path"] or "",
                                     args.people, connections, args.duration, args)
                result["round"] = round_number
                result["ok"] = run_ok(result, scenario["probe"])
                if "alone" in scenario and result["ok"]:
                    result["postgresAlone"] = run_postgres_alone(scenario, scenarios, result, url, args)
                if compare_raw:
                    raw_after = raw.run()
                    raw_rate = (raw_before["rowsPerSecond"] + raw_after["rowsPerSecond"]) / 2
                    key = "sqliteInsert" if raw is raw_sqlite else "libpqInsert"
                    result[key] = {"before": raw_before["rowsPerSecond"],
                                   "after": raw_after["rowsPerSecond"],
                                   "rowsPerSecond": raw_rate,
                                   "ratio": result["rps"] / raw_rate
                                   if result["ok"] and raw_rate else None}
                after = ceiling_run(ceiling, args, connections, args.ceiling_duration)
                ceiling_runs[connections].append(after)
                reference = (before["rps"] + after["rps"]) / 2
                result["ceiling"] = {"before": before, "after": after, "rps": reference}
                result["ratio"] = result["rps"] / reference if result["ok"] and reference else None
                scenario["runs"].append(result)
                log(f"  {result['rps']:.0f} req/s (ceiling {before['rps']:.0f} / "
                    f"{after['rps']:.0f}), p50 {result['p50_us'] / 1000:.2f} ms, p99 "
                    f"{result['p99_us'] / 1000:.2f} ms, non-2xx {result['non2xx']}, "
                    f"errors {result['socket_errors']}")
                before = after
    for scenario in scenarios:
        scenario["summary"] = [summarize_runs([run for run in scenario["runs"]
                                               if run["connections"] == connections])
                               for connections in args.connections]
    process_peak = gateway.status()
    servers.stop_all()
    for scenario in scenarios:
        del scenario["server"]
        if "alone" in scenario:
            script, defines = scenario.pop("alone").pgbench_script()
            scenario["postgresAloneScript"] = {"script": script, "variables": defines}
    raw_sqlite.remove()
    remove_database(database)
    if floor_database:
        remove_database(floor_database)

    results = {
        "mode": "default", "dataset": dataset, "ceiling": summarize_ceiling(ceiling_runs),
        "sqliteInsert": raw_sqlite.summary(), "scenarios": scenarios,
        "gatewayMemory": {"idleRssKb": idle_rss.get("VmRSS"),
                          "processPeakRssKb": process_peak.get("VmHWM")},
        "database": args.database,
    }
    results["targets"] = check_targets(results)
    if args.database == "postgresql":
        results["postgres"] = {"rows": postgres_rows, "gateways": args.gateways,
                               "threadsPerGateway": args.threads_per_gateway,
                               "libpqInsert": raw_libpq.summary()}
        results["postgresTargets"] = check_postgres_targets(results, args.connections)
    return results


def summarize_runs(runs):
    """A scenario's runs at one connection count (one per round) as one figure: the median of
    each measure, so that one run hit by a neighbour's burst does not decide it, with the range
    beside it. With one round it is that run's figures."""
    ok = all(run["ok"] for run in runs)

    def spread(values, prefix):
        values = [v for v in values if v is not None]
        if not values or not ok:
            return {prefix: None, prefix + "Min": None, prefix + "Max": None}
        return {prefix: median(values), prefix + "Min": min(values), prefix + "Max": max(values)}

    summary = {"connections": runs[0]["connections"], "runs": len(runs), "ok": ok,
               "rps": median([run["rps"] for run in runs]),
               "rpsMin": min(run["rps"] for run in runs), "rpsMax": max(run["rps"] for run in runs),
               "p50_us": median([run["p50_us"] for run in runs]),
               "p99_us": median([run["p99_us"] for run in runs]),
               "p99MinUs": min(run["p99_us"] for run in runs),
               "p99MaxUs": max(run["p99_us"] for run in runs),
               "non2xx": sum(run["non2xx"] for run in runs),
               "socket_errors": sum(run["socket_errors"] for run in runs),
               "peak_rss_kb": max(run["peak_rss_kb"] or 0 for run in runs) or None}
    summary.update(spread([run["ratio"] for run in runs], "ratio"))
    if all("sqliteInsert" in run for run in runs):
        summary.update(spread([run["sqliteInsert"]["ratio"] for run in runs], "sqliteRatio"))
        summary["sqliteRuns"] = [run["sqliteInsert"] for run in runs]
    if all("libpqInsert" in run for run in runs):
        summary.update(spread([run["libpqInsert"]["ratio"] for run in runs], "libpqRatio"))
        summary["libpqRuns"] = [run["libpqInsert"] for run in runs]
    if all("postgresAlone" in run for run in runs):
        summary.update(spread([run["postgresAlone"]["ratio"] for run in runs], "aloneRatio"))
        summary["aloneReadsPerSecond"] = median([run["postgresAlone"]["readsPerSecond"] for run in runs])
        summary["aloneClients"] = runs[0]["postgresAlone"]["clients"]
    return summary


def find_run(results, name, connections):
    """The summary of a scenario's runs at `connections` (`summarize_runs`)."""
    for scenario in results["scenarios"]:
        if scenario["name"] == name:
            for summary in scenario["summary"]:
                if summary["connections"] == connections:
                    return summary
    return None


def gateway_to_floor(results, floor_name, connections):
    """The gateway's req/s over the floor's in each round at `connections` (the floor runs right
    after the gateway): the median and the range, or None when either failed."""
    ratios = floor_ratios(results, floor_name, connections)
    return (median(ratios), min(ratios), max(ratios)) if ratios else None


def floor_ratios(results, floor_name, connections):
    """The gateway's req/s over the floor's in each round at `connections` where both
    succeeded."""
    runs = {}
    for scenario in results["scenarios"]:
        if scenario["name"] in (floor_name, FLOOR_OF[floor_name]):
            runs[scenario["name"]] = {run["round"]: run for run in scenario["runs"]
                                      if run["connections"] == connections}
    floor_runs, gateway_runs = runs.get(floor_name, {}), runs.get(FLOOR_OF[floor_name], {})
    return [gateway_runs[r]["rps"] / floor_runs[r]["rps"] for r in floor_runs
            if r in gateway_runs and floor_runs[r]["ok"] and gateway_runs[r]["ok"]
            and floor_runs[r]["rps"]]


def ratio_of_runs(results, name, other, connections):
    """`name`'s req/s over `other`'s in each round at `connections`: the median and the range,
    or None when either failed in every round."""
    runs = {}
    for scenario in results["scenarios"]:
        if scenario["name"] in (name, other):
            runs[scenario["name"]] = {run["round"]: run for run in scenario["runs"]
                                      if run["connections"] == connections}
    mine, theirs = runs.get(name, {}), runs.get(other, {})
    ratios = [mine[r]["rps"] / theirs[r]["rps"] for r in mine
              if r in theirs and mine[r]["ok"] and theirs[r]["ok"] and theirs[r]["rps"]]
    return (median(ratios), min(ratios), max(ratios)) if ratios else None


def check_postgres_targets(results, connection_counts):
    """Issue 34's goals, at every connection count: each read on PostgreSQL against the same
    read on SQLite, POST against raw libpq's commits, two gateways against one (with no errors)."""
    targets = []
    for scenario in results["scenarios"]:
        engine = scenario.get("engine")
        if engine not in ("postgresql", "postgresql-gateways"):
            continue
        for connections in connection_counts:
            run = find_run(results, scenario["name"], connections)
            if engine == "postgresql" and scenario["kind"] == "read":
                compared = ratio_of_runs(results, scenario["name"], scenario["sqliteName"], connections)
                what, goal = f"{label(scenario['name'])} @{connections}, x SQLite", POSTGRES_READ_TARGET
            elif engine == "postgresql" and scenario["script"] == POST_SCRIPT:
                compared = ((run["libpqRatio"], run["libpqRatioMin"], run["libpqRatioMax"])
                            if run and run.get("libpqRatio") is not None else None)
                what, goal = f"{label(scenario['name'])} @{connections}, x raw libpq", POST_TO_LIBPQ_TARGET
            elif engine == "postgresql-gateways":
                one = engine_name(scenario["sqliteName"], "postgresql")
                compared = ratio_of_runs(results, scenario["name"], one, connections)
                what, goal = f"{label(scenario['name'])} @{connections}, x 1 gateway", GATEWAYS_TARGET
            else:
                continue
            if run is None:
                state = "not run"
            elif not run["ok"] or compared is None:
                state = "failing requests"
            else:
                state = "PASS" if compared[0] >= goal else "FAIL"
            alone = run.get("aloneRatio") if run and engine == "postgresql" else None
            targets.append({"target": what, "goal": f">= {goal:.2f}", "result": state, "alone": alone,
                            "value": compared[0] if compared and state != "failing requests" else None,
                            "range": list(compared[1:]) if compared else None,
                            "runs": run["runs"] if run else 0,
                            "errors": {"non2xx": run["non2xx"], "socket": run["socket_errors"]} if run else None})
    return targets


def check_targets(results):
    targets = []

    def verdict(run, value, passed, goal, what, floor=None, low=None, high=None):
        if run is None:
            state, value = "not run", None
        elif not run["ok"]:
            state, value = "failing requests", None
        else:
            state = "PASS" if passed else "FAIL"
        targets.append({"target": what, "goal": goal, "value": value, "result": state,
                        "floor": floor, "runs": run["runs"] if run else 0,
                        "range": [low, high] if value is not None and low is not None else None})

    for name, minimum in RATIO_TARGETS:
        run = find_run(results, name, 16)
        ratio = run.get("ratio") if run else None
        # The C floor's own ratio in the same run, where it answers this scenario: what
        # libmicrohttpd and SQLite alone reached against the same goal.
        floor_run = find_run(results, FLOOR_SCENARIOS[name], 16) if name in FLOOR_SCENARIOS else None
        floor = floor_run.get("ratio") if floor_run else None
        verdict(run, ratio, ratio is not None and ratio >= minimum, f">= {minimum:.2f}",
                f"{label(name)} @16, x ceiling", floor,
                *((run["ratioMin"], run["ratioMax"]) if run else ()))
    run = find_run(results, "POST Person", 16)
    ratio = run.get("sqliteRatio") if run else None
    verdict(run, ratio, ratio is not None and ratio >= POST_TO_SQLITE_TARGET,
            f">= {POST_TO_SQLITE_TARGET:.2f}", "POST Person @16, x raw SQLite inserts", None,
            *((run.get("sqliteRatioMin"), run.get("sqliteRatioMax")) if run else ()))
    for scenario in results["scenarios"]:
        if scenario["kind"] != "read" or scenario.get("engine", "sqlite") != "sqlite":
            continue
        run = find_run(results, scenario["name"], 64)
        p99 = run["p99_us"] / 1000 if run else None
        verdict(run, p99, p99 is not None and p99 < P99_TARGET_MS, f"< {P99_TARGET_MS:.0f} ms",
                f"{label(scenario['name'])} @64, p99 ms", None,
                *((run["p99MinUs"] / 1000, run["p99MaxUs"] / 1000) if run else ()))
    return targets


def format_default(results):
    lines = []
    dataset = results["dataset"]
    rows = ", ".join(f"{k} {v}" for k, v in (dataset.get("rows") or {}).items())
    lines.append(f"Data set: {dataset['people']} people ({rows})")
    raw = results["sqliteInsert"]
    if raw:
        lines.append(f"Raw SQLite: {raw['rowsPerSecond']:.0f} one-row inserts/s on average, "
                     f"{raw['min']:.0f} to {raw['max']:.0f} (journal {raw['journal']}, "
                     f"synchronous {raw['synchronous']}; run before and after each POST run)")
    libpq = (results.get("postgres") or {}).get("libpqInsert")
    if libpq:
        lines.append(f"Raw libpq: {libpq['rowsPerSecond']:.0f} one-row inserts/s on average, "
                     f"{libpq['min']:.0f} to {libpq['max']:.0f} ({libpq['connections']} connections, "
                     f"synchronous_commit {libpq['synchronousCommit']}; run before and after each "
                     f"POST Person [PG] run)")
    if results.get("postgres"):
        gateways = results["postgres"]["gateways"]
        workers = results["postgres"].get("threadsPerGateway")
        lines.append(f"PostgreSQL: a throw-away cluster (scripts/postgres-cluster) with the same data set; "
                     f"[PG] rows: one gateway on it"
                     + (f", [PG 2gw] rows: {gateways} gateways on it with {workers} worker"
                        f"{'' if workers == 1 else 's'} each, wrk's connections and threads shared "
                        f"out between them" if gateways > 1 else ""))
    rounds = max((summary["runs"] for scenario in results["scenarios"]
                  for summary in scenario["summary"]), default=1)

    def ranged(value, low, high, form="{:.2f}"):
        """A median with its range when there were rounds: `0.84 (0.81-0.86)`."""
        if value is None:
            return "-"
        shown = form.format(value)
        return f"{shown} ({form.format(low)}-{form.format(high)})" if rounds > 1 else shown

    if rounds > 1:
        lines.append(f"{rounds} rounds: each figure is the median of its runs, one per round, "
                     f"with their range in brackets where it is a ratio")
    # Room for `0.84 (0.81-0.86)` when there were rounds.
    ratio_width = 17 if rounds > 1 else 6
    header = (f"{'scenario':<{LABEL_WIDTH}} {'conn':>4} {'req/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'x ceil':>{ratio_width}} {'non-2xx':>8} {'RSS MB':>7}")
    lines.append(header)
    lines.append("-" * len(header))
    for connections, figure in sorted(results["ceiling"].items()):
        lines.append(f"{'C ceiling (libmicrohttpd, fixed body)':<{LABEL_WIDTH}} {connections:>4} "
                     f"{figure['rps']:>9.0f} {figure['p50_us'] / 1000:>7.2f} "
                     f"{figure['p99_us'] / 1000:>7.2f} {'1.00':>{ratio_width}} {0:>8} {'':>7}")
    for scenario in results["scenarios"]:
        for summary in scenario["summary"]:
            ratio = ranged(summary["ratio"], summary["ratioMin"], summary["ratioMax"])
            rss = f"{summary['peak_rss_kb'] / 1024:.1f}" if summary.get("peak_rss_kb") else "-"
            lines.append(f"{label(scenario['name']):<{LABEL_WIDTH}} {summary['connections']:>4} "
                         f"{summary['rps']:>9.0f} {summary['p50_us'] / 1000:>7.2f} "
                         f"{summary['p99_us'] / 1000:>7.2f} {ratio:>{ratio_width}} "
                         f"{summary['non2xx']:>8} {rss:>7}")
        engine = scenario.get("engine", "sqlite")
        if scenario["script"] == POST_SCRIPT and engine == "postgresql":
            for summary in scenario["summary"]:
                if summary["ok"]:
                    raw = [run["rowsPerSecond"] for run in summary["libpqRuns"]]
                    lines.append(f"    ^ {summary['connections']} connections: "
                                 f"{ranged(summary['libpqRatio'], summary['libpqRatioMin'], summary['libpqRatioMax'])}"
                                 f" x raw libpq (raw libpq {min(raw):.0f} to {max(raw):.0f} around them)")
        if engine == "postgresql" and scenario["kind"] == "read":
            for summary in scenario["summary"]:
                compared = ratio_of_runs(results, scenario["name"], scenario["sqliteName"], summary["connections"])
                if compared:
                    lines.append(f"    ^ {summary['connections']} connections: {ranged(*compared)} x SQLite's req/s")
                if summary.get("aloneRatio") is not None:
                    lines.append(f"      its statements alone (pgbench, {summary['aloneClients']} connections): "
                                 f"{summary['aloneReadsPerSecond']:.0f}/s, "
                                 f"{ranged(summary['aloneRatio'], summary['aloneRatioMin'], summary['aloneRatioMax'])}"
                                 f" x SQLite's req/s")
        if engine == "postgresql-gateways":
            for summary in scenario["summary"]:
                one = engine_name(scenario["sqliteName"], "postgresql")
                compared = ratio_of_runs(results, scenario["name"], one, summary["connections"])
                lines.append(f"    ^ {summary['connections']} connections: "
                             f"{ranged(*compared) if compared else '-'} x one gateway; "
                             f"errors: non-2xx {summary['non2xx']}, socket {summary['socket_errors']}")
        if scenario["script"] == POST_SCRIPT and engine == "sqlite":
            for summary in scenario["summary"]:
                if summary["ok"]:
                    raw = [run["rowsPerSecond"] for run in summary["sqliteRuns"]]
                    around = (f"{summary['sqliteRuns'][0]['before']:.0f} before, "
                              f"{summary['sqliteRuns'][0]['after']:.0f} after" if rounds == 1
                              else f"raw SQLite {min(raw):.0f} to {max(raw):.0f} around them")
                    lines.append(f"    ^ {summary['connections']} connections: "
                                 f"{ranged(summary['sqliteRatio'], summary['sqliteRatioMin'], summary['sqliteRatioMax'])}"
                                 f" x raw SQLite ({around})")
        if scenario["kind"] == "floor":
            for summary in scenario["summary"]:
                compared = gateway_to_floor(results, scenario["name"], summary["connections"])
                if compared:
                    lines.append(f"    ^ {summary['connections']} connections: the gateway's "
                                 f"{scenario['floorOf']} is {ranged(*compared)} x this floor")
        if scenario["script"] == BATCH_SCRIPT:
            for summary in scenario["summary"]:
                if summary["ok"]:
                    lines.append(f"    ^ {summary['connections']} connections: "
                                 f"{summary['rps'] * BATCH_CHANGES:.0f} changes/s")
        if not scenario["probe"]["ok"]:
            lines.append(f"    ^ FAILING: {scenario['probe']['note']}")
        elif any(not run["ok"] for run in scenario["runs"]):
            errors = sum(run["socket_errors"] for run in scenario["runs"])
            lines.append(f"    ^ FAILING under load: non-2xx responses or {errors} socket errors")
    for name, short in LABELS.items():
        if any(scenario["name"] == name for scenario in results["scenarios"]):
            lines.append(f"{short} = {name}")
    lines.append("non-2xx counts answers above 399 and, for $batch, failed operations inside "
                 "its answer")
    spread = ", ".join(f"{c} connections {f['rpsMin']:.0f} to {f['rpsMax']:.0f}"
                       for c, f in sorted(results["ceiling"].items()))
    lines.append(f"x ceil = gateway req/s / mean of the ceiling runs just before and after it "
                 f"(same connections); ceiling rows = mean of all its runs (range: {spread})")
    if rounds > 1:
        lines.append("p99 ms = the median of the rounds' p99")
    memory = results["gatewayMemory"]
    if memory.get("processPeakRssKb"):
        lines.append(f"Gateway peak RSS over the whole run: {memory['processPeakRssKb'] / 1024:.1f}"
                     f" MB (idle after start: {(memory.get('idleRssKb') or 0) / 1024:.1f} MB)")
    lines.append("")
    value_width = ratio_width + 1 if rounds > 1 else ratio_width

    def target_line(target, width, beside):
        """`RESULT  target  value (range)  (goal ...; beside)`."""
        value = target["value"]
        shown = "-" if value is None else f"{value:.2f}"
        if value is not None and target["runs"] > 1 and target["range"]:
            shown += f" ({target['range'][0]:.2f}-{target['range'][1]:.2f})"
        return (f"  {target['result']:<16} {target['target']:<{width}} {shown:>{value_width}}  "
                f"(goal {target['goal']}{beside})")

    lines.append("Targets (issue 6):")
    for target in results["targets"]:
        floor = target.get("floor")
        lines.append(target_line(target, 56, f"; C floor {floor:.2f}" if floor is not None else ""))
    if results.get("postgresTargets"):
        lines.append("")
        lines.append("Targets (issue 34, PostgreSQL; two gateways must also have no errors):")
        for target in results["postgresTargets"]:
            errors = target["errors"]
            beside = (f"; non-2xx {errors['non2xx']}, socket errors {errors['socket']}"
                      if errors and "gateway" in target["target"] else "")
            if target.get("alone") is not None:
                beside += f"; statements alone {target['alone']:.2f}"
            lines.append(target_line(target, 62, beside))
    return "\n".join(lines)


# ---------------------------------------------------------------- growth mode

def first_page(gateway):
    """GET Person: the server's page size and its __next link, if it pages."""
    connection = http.client.HTTPConnection(gateway.host, gateway.port, timeout=120)
    try:
        connection.request("GET", gateway.root_path + "Person",
                           headers={"Accept": "application/json", "MaxDataServiceVersion": "2.0"})
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            return None, 0, f"GET Person answered {response.status}"
        d = json.loads(body)["d"]
        if isinstance(d, dict):
            return d.get("__next"), len(d.get("results", [])), None
        return None, len(d), None
    finally:
        connection.close()


def deep_skiptoken_path(gateway, people):
    """The first page's __next link with its key moved near the end of the set, yet leaving a
    full page after it, so both scales answer the same number of rows."""
    next_link, page_size, problem = first_page(gateway)
    if problem:
        return None, problem
    if not next_link:
        return None, "the gateway does not page Person (no __next on GET Person)"
    relative = next_link
    root = gateway.url
    if relative.startswith(root):
        relative = relative[len(root):]
    elif relative.startswith(gateway.root_path):
        relative = relative[len(gateway.root_path):]
    deep = max(1, min(int(people * 0.9), people - page_size))
    path, replaced = re.subn(r"(\$skiptoken=)(\d+)", lambda m: f"{m.group(1)}{deep}", relative)
    if not replaced:
        return None, f"cannot place a deep key in the __next link {next_link}"
    return path, None


def page_through(gateway, max_seconds):
    """Follows __next from GET Person to the end (bounded), sampling the gateway's peak RSS."""
    gateway.reset_peak_rss()
    connection = http.client.HTTPConnection(gateway.host, gateway.port, timeout=120)
    path = gateway.root_path + "Person"
    pages = rows = 0
    started = time.monotonic()
    outcome = "complete"
    try:
        while path:
            if time.monotonic() - started > max_seconds:
                outcome = f"stopped after {max_seconds}s"
                break
            connection.request("GET", path, headers={"Accept": "application/json",
                                                     "MaxDataServiceVersion": "2.0"})
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                outcome = f"HTTP {response.status} on page {pages + 1}: {body[:200]!r}"
                break
            d = json.loads(body)["d"]
            results = d.get("results", []) if isinstance(d, dict) else d
            pages += 1
            rows += len(results)
            next_link = d.get("__next") if isinstance(d, dict) else None
            if next_link:
                path = urllib.parse.urlsplit(next_link)
                path = path.path + ("?" + path.query if path.query else "")
            else:
                path = None
    except (OSError, http.client.HTTPException, ValueError) as error:
        outcome = f"client error: {error}"
    finally:
        connection.close()
    seconds = time.monotonic() - started
    status = gateway.status()
    peak = status.get("VmHWM")
    log(f"  paged {rows} rows in {pages} pages, {seconds:.1f}s, peak RSS "
        f"{(peak or 0) / 1024:.1f} MB ({outcome}){rss_parts(status)}")
    return {"pages": pages, "rows": rows, "seconds": round(seconds, 1), "peakRssKb": peak,
            "rssAnonKb": status.get("RssAnon"), "rssFileKb": status.get("RssFile"),
            "outcome": outcome}


def rss_parts(status):
    """`; at the end: A MB anonymous, F MB file pages`, when /proc gives them."""
    if status.get("RssAnon") is None or status.get("RssFile") is None:
        return ""
    return (f"; at the end: {status['RssAnon'] / 1024:.1f} MB anonymous, "
            f"{status['RssFile'] / 1024:.1f} MB file pages")


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def combine(results):
    """Several wrk runs of one gateway as one: total requests over total time, and the median
    of their latency percentiles (one run hit by a neighbour's burst does not decide them)."""
    seconds = sum(r["duration_us"] for r in results) / 1e6
    combined = {key: sum(r[key] for r in results)
                for key in ("requests", "non2xx", "socket_errors", "duration_us")}
    combined.update(rps=combined["requests"] / seconds if seconds else 0.0,
                    p50_us=median([r["p50_us"] for r in results]),
                    p99_us=median([r["p99_us"] for r in results]),
                    connections=results[0]["connections"],
                    peak_rss_kb=max(r["peak_rss_kb"] or 0 for r in results) or None,
                    parts=results)
    return combined


def growth(args, servers):
    """Both scales served at once by two gateways, each scenario run on them in the order
    small, large, large, small: the slowdown compares runs seconds apart, not minutes."""
    scales = [args.growth_small, args.growth_large]
    connections = args.growth_connections
    databases, datasets = {}, {}
    for people in scales:
        databases[people], datasets[people] = prepare_database(args, people)
    ceiling = start_ceiling(servers, args)
    gateways = {people: start_gateway(servers, args, databases[people], f"{people}")
                for people in scales}
    ceiling_run(ceiling, args, connections, 1)  # warm-up
    ceiling_runs = [ceiling_run(ceiling, args, connections, args.ceiling_duration)]

    plan = [(SCENARIOS[0][0], SCENARIOS[0][1], {p: SCENARIOS[0][2] for p in scales}),
            (SCENARIOS[1][0], SCENARIOS[1][1], {p: SCENARIOS[1][2] for p in scales})]
    deep = {people: deep_skiptoken_path(gateways[people], people) for people in scales}
    deep_problem = next((problem for _, problem in deep.values() if problem), None)
    deep_name = "Person?$skiptoken=<deep> (a full page)"
    if not deep_problem:
        # The first page beside the deep one: keyset paging makes them cost the same.
        plan.append(("Person (the first full page)", "get.lua", {p: "Person" for p in scales}))
        plan.append((deep_name, "get.lua", {p: deep[p][0] for p in scales}))
    plan.append((SCENARIOS[2][0], SCENARIOS[2][1], {p: SCENARIOS[2][2] for p in scales}))

    half = max(1, args.duration // 2)
    comparison = []
    for name, script, paths in plan:
        log(f"{name}, {connections} connections")
        probes = {p: probe(gateways[p], name, script, paths[p], p) for p in scales}
        runs = {p: [] for p in scales}
        for people in (scales[0], scales[1], scales[1], scales[0]):
            runs[people].append(measure(gateways[people], script, paths[people], people,
                                        connections, half, args))
        small, large = (combine(runs[p]) for p in scales)
        for people, run in zip(scales, (small, large)):
            run["ok"] = run_ok(run, probes[people])
            run["path"] = paths[people]
            log(f"  {people} people: {run['rps']:.0f} req/s, p50 {run['p50_us'] / 1000:.2f} ms, "
                f"non-2xx {run['non2xx']}")
        entry = {"name": name, "small": small, "large": large, "slowdown": None,
                 "p50Slowdown": None, "result": "failing requests",
                 "note": next((probes[p]["note"] for p in scales if probes[p]["note"]), "")}
        if small["ok"] and large["ok"] and large["rps"] > 0 and small["p50_us"] > 0:
            entry["slowdown"] = small["rps"] / large["rps"]
            entry["p50Slowdown"] = large["p50_us"] / small["p50_us"]
            entry["result"] = "PASS" if entry["slowdown"] <= GROWTH_TARGET else "FAIL"
        comparison.append(entry)
    if deep_problem:
        comparison.append({"name": deep_name, "small": None, "large": None, "slowdown": None,
                           "p50Slowdown": None, "result": "not run", "note": deep_problem})
    ceiling_runs.append(ceiling_run(ceiling, args, connections, args.ceiling_duration))
    servers.stop_all()

    paging = {}
    for people in scales:
        log(f"paging through Person at {people} people (fresh gateway)")
        gateway = start_gateway(servers, args, databases[people], f"{people}-paging")
        paging[str(people)] = page_through(gateway, args.paging_seconds)
        servers.stop(gateway)
        remove_database(databases[people])

    large_paging = paging[str(scales[1])]
    peak = large_paging["peakRssKb"]
    complete = large_paging["outcome"] == "complete"
    return {
        "mode": "growth", "connections": connections, "scales": scales,
        "datasets": {str(p): datasets[p] for p in scales},
        "ceiling": summarize_ceiling({connections: ceiling_runs}),
        "comparison": comparison, "paging": paging,
        "pagingTarget": {"goalMb": PAGING_RSS_TARGET_MB,
                         "peakRssMb": peak / 1024 if peak else None,
                         "result": ("PASS" if complete and peak and
                                    peak / 1024 < PAGING_RSS_TARGET_MB else
                                    "FAIL" if complete else "incomplete")},
    }


def format_growth(results, args):
    lines = []
    small, large = results["scales"]
    lines.append(f"Growth: {small} vs {large} people, {results['connections']} connections, "
                 f"both gateways up, runs in the order small, large, large, small.")
    lines.append(f"slowdown = req/s at {small} / req/s at {large} (goal <= {GROWTH_TARGET})")
    header = (f"{'scenario':<{LABEL_WIDTH}} {'req/s ' + str(small):>12} {'req/s ' + str(large):>15} "
              f"{'p50 ms':>7} {'p50 ms':>7} {'slowdown':>8}  result")
    lines.append(header)
    lines.append("-" * len(header))
    for entry in results["comparison"]:
        a, b = entry["small"], entry["large"]

        def figure(run, key, scale=1.0, fmt="{:.0f}"):
            return fmt.format(run[key] * scale) if run else "-"
        slowdown = f"{entry['slowdown']:.2f}" if entry["slowdown"] is not None else "-"
        lines.append(f"{label(entry['name']):<{LABEL_WIDTH}} {figure(a, 'rps'):>12} {figure(b, 'rps'):>15} "
                     f"{figure(a, 'p50_us', 0.001, '{:.2f}'):>7} "
                     f"{figure(b, 'p50_us', 0.001, '{:.2f}'):>7} {slowdown:>8}  "
                     f"{entry['result']}")
        if entry["note"]:
            lines.append(f"    ^ {entry['note'][:150]}")
    for people in (small, large):
        paging = results["paging"][str(people)]
        peak = paging["peakRssKb"]
        parts = rss_parts({"RssAnon": paging.get("rssAnonKb"), "RssFile": paging.get("rssFileKb")})
        lines.append(f"Paging through Person at {people} people: {paging['rows']} rows in "
                     f"{paging['pages']} pages, {paging['seconds']}s, gateway peak RSS "
                     f"{(peak or 0) / 1024:.1f} MB ({paging['outcome']}){parts}")
    target = results["pagingTarget"]
    lines.append(f"Peak RSS while paging {large} people: goal < {target['goalMb']} MB: "
                 f"{target['result']}")
    for connections, figure in sorted(results["ceiling"].items()):
        lines.append(f"C ceiling, {connections} connections: {figure['rps']:.0f} req/s on average "
                     f"({figure['rpsMin']:.0f} to {figure['rpsMax']:.0f})")
    return "\n".join(lines)


# ---------------------------------------------------------------- main

def machine_description():
    model = ""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpuModel": model, "kernel": platform.release(),
            "python": platform.python_version()}


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gateway", required=True, help="dealer-gateway executable")
    parser.add_argument("--ceiling", required=True, help="the C ceiling server executable")
    parser.add_argument("--sqlite-insert", required=True, help="the raw SQLite insert program")
    parser.add_argument("--pg-insert", default=None,
                        help="the raw libpq insert program (Benchmarks/pg_insert), for --database postgresql")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite",
                        help="postgresql: every scenario also runs against a gateway serving a "
                             "throw-away PostgreSQL cluster with the same data set, beside SQLite's")
    parser.add_argument("--libpq-connections", type=int, default=None,
                        help="connections of the raw libpq insert loop (default: --threads, the "
                             "commits one gateway can have in flight)")
    parser.add_argument("--gateways", type=int, default=1,
                        help="with 2 or more (implies --database postgresql), every scenario also "
                             "runs against that many gateways on the one PostgreSQL database")
    parser.add_argument("--threads-per-gateway", type=int, default=None,
                        help="workers of each of the --gateways (default --threads); with --threads "
                             "divided by --gateways, the gateways together have the workers, and "
                             "so the database connections, of the one they are compared with")
    parser.add_argument("--floor", default=None,
                        help="the C floor server (Person(n) and Person?$top=20 with libmicrohttpd and SQLite alone)")
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=8, help="seconds per gateway wrk run")
    parser.add_argument("--ceiling-duration", type=int, default=None,
                        help="seconds per ceiling run (default: half of --duration, at least 2)")
    parser.add_argument("--connections", default="16,64")
    parser.add_argument("--rounds", type=int, default=1,
                        help="times the whole sequence of runs is repeated; each figure is then "
                             "the median of its rounds, shown with their range")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2,
                        help="thread pool of the gateway and of the ceiling")
    parser.add_argument("--gateway-log-level", default=None,
                        help="passed to dealer-gateway serve --log-level (default: its own)")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=6, help="data set seed")
    parser.add_argument("--scenarios", default="",
                        help="comma-separated substrings selecting scenarios (default: all)")
    parser.add_argument("--synchronous", default="FULL",
                        help="SQLite synchronous setting for the raw insert rate (the gateway uses FULL)")
    parser.add_argument("--journal", default="WAL", help="journal mode for the raw insert rate")
    parser.add_argument("--sqlite-seconds", type=float, default=3)
    parser.add_argument("--growth", action="store_true")
    parser.add_argument("--growth-small", type=int, default=1000)
    parser.add_argument("--growth-large", type=int, default=1_000_000)
    parser.add_argument("--growth-connections", type=int, default=16)
    parser.add_argument("--paging-seconds", type=int, default=300,
                        help="upper bound for paging through Person in growth mode")
    parser.add_argument("--schema", default=os.path.join(REPO_DIR, "Schema", "CarDealer.edmx"))
    parser.add_argument("--seed-dir", default=os.path.join(REPO_DIR, "SeedData"))
    parser.add_argument("--results-dir", default=os.path.join(BENCH_DIR, "results"))
    parser.add_argument("--data-dir", default=None,
                        help="generated databases (default: <results-dir>/data)")
    args = parser.parse_args()
    args.connections = [int(c) for c in args.connections.split(",") if c.strip()]
    args.scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    args.ceiling_duration = args.ceiling_duration or max(2, args.duration // 2)
    args.data_dir = args.data_dir or os.path.join(args.results_dir, "data")
    args.stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    if args.duration < 1 or not args.connections or args.rounds < 1:
        parser.error("--duration and --rounds must be at least 1 and --connections non-empty")
    if args.gateways < 1:
        parser.error("--gateways must be at least 1")
    if args.gateways > 1:
        args.database = "postgresql"
    if args.threads_per_gateway is not None and (args.threads_per_gateway < 1 or args.gateways < 2):
        parser.error("--threads-per-gateway must be at least 1, with --gateways 2 or more")
    args.threads_per_gateway = args.threads_per_gateway or args.threads
    if args.database == "postgresql" and args.growth:
        parser.error("--growth runs on SQLite only")
    if args.database == "postgresql" and not args.pg_insert:
        parser.error("--database postgresql needs --pg-insert (Benchmarks/run.sh builds it)")
    return args


def main():
    args = parse_arguments()
    os.makedirs(args.results_dir, exist_ok=True)
    servers = Servers()

    def on_signal(signo, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        if args.growth:
            results = growth(args, servers)
            table = format_growth(results, args)
        else:
            results = benchmark(args, servers)
            table = format_default(results)
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    except (RuntimeError, generate_data.GenerationError, postgres.PostgresError,
            subprocess.SubprocessError, OSError) as error:
        log(f"benchmark failed: {error}")
        return 1
    finally:
        servers.stop_all()
    results.update(timestamp=args.stamp, machine=machine_description(), options={
        "duration": args.duration, "connections": args.connections, "rounds": args.rounds,
        "threads": args.threads,
        "wrkThreads": args.wrk_threads, "people": args.people, "growth": args.growth,
        "database": args.database, "gateways": args.gateways,
        "threadsPerGateway": args.threads_per_gateway,
        "synchronous": args.synchronous, "journal": args.journal})
    results["table"] = table.splitlines()
    path = os.path.join(args.results_dir, f"{args.stamp}.json")
    with open(path, "w") as output:
        json.dump(results, output, indent=1, default=str)
    print(table)
    shown = os.path.relpath(path, os.getcwd())
    print(f"\nResults: {path if shown.startswith('..') else shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
