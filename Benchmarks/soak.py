#!/usr/bin/env python3
"""The soak and fault check of the gateway: load, kill -9, a connection flood and a $batch that
amplifies its response, each against the real dealer-gateway on 127.0.0.1.

Normally started by Benchmarks/soak.sh, which installs wrk and builds the gateway. Each step runs
its own gateway on a fresh database seeded from SeedData/ (port 0: a free one), prints one line of
figures on stdout and passes or fails; progress goes to stderr. Every request the script derives
comes from the service's $metadata and data, except step 5's expansion, which is the case the
reliability work names (a derived one is used when the schema lacks it). Every wait is bounded:
each client request has a timeout, and a watchdog per step kills the gateway with SIGKILL when a
step overruns, which turns any wedge into a failure instead of a hang.

Steps:
  1  mixed reads at 64 connections (wrk) for --seconds: no error, no non-2xx
  2  mixed writes (POST, MERGE, DELETE, $batch change sets) and reads for --seconds, then every
     acknowledged write is read back
  3  --rounds rounds of kill -9 under write load; after each restart every acknowledged write is
     there (an unacknowledged one may or may not be, a change set wholly or not at all); then
     SQLite's integrity and foreign-key checks
  4  a flood of 3 x the connection limit held open: a held connection is still answered within
     2 s, a new one is answered or refused within 2 s (never left hanging), after the flood a new
     request is answered within 2 s, and SIGTERM stops the gateway within 5 s
  5  a $batch of 40 GETs of a six-level $expand: the gateway's RSS grows by less than 64 MB

Exits 1 when any step fails (each failing step is named on the last line), 2 on bad usage.
"""

import argparse
import ctypes
import http.client
import json
import os
import random
import re
import resource
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from odata_metadata import MetadataModel, key_literal  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proc_memory  # noqa: E402

sys.dont_write_bytecode = True

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
WRK_DIR = os.path.join(BENCH_DIR, "wrk")
REQUEST_TIMEOUT = 10.0
SIGTERM_DEADLINE = 5.0
ANSWER_DEADLINE = 2.0
RSS_GROWTH_LIMIT_MB = 64
# The gateway's own default for --max-connections.
DEFAULT_CONNECTION_LIMIT = 1024
# The expansion of the $batch amplification case, from the set it starts at.
NAMED_EXPANSION = ("Person", "PersonCar/PersonCarMaintenance/Maintenance/PersonCarMaintenance/PersonCar/Car")
BATCH_GETS = 40
# Characters left as they are when a path is percent-encoded.
PATH_SAFE = "/?&=$(),'*:@;!"


def log(message):
    print(message, file=sys.stderr, flush=True)


class StepFailure(Exception):
    pass


def die_with_parent():
    """Runs in each child before exec: it gets SIGKILL if this script dies, so no gateway outlives it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


# The gateway process

class Gateway:
    """`dealer-gateway serve` on a database file, on 127.0.0.1 and a free port."""

    running = set()
    running_lock = threading.Lock()
    # Set by a step's watchdog: the step may start no further gateway.
    starts_refused = False

    def __init__(self, args, database, log_path, extra=()):
        if Gateway.starts_refused:
            raise StepFailure("the step's watchdog fired")
        self.command = [args.gateway, "serve", "--schema", args.schema, "--seed", args.seed,
                        "--db", database, "--host", "127.0.0.1", "--port", "0",
                        "--log-level", "warning", *extra]
        self.log_file = open(log_path, "ab")
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=self.log_file,
                                        stdin=subprocess.DEVNULL, cwd=REPO_DIR, preexec_fn=die_with_parent)
        self.pid = self.process.pid
        with Gateway.running_lock:
            Gateway.running.add(self)
        lines = []
        reader = threading.Thread(target=self._read_stdout, args=(lines,), daemon=True)
        reader.start()
        reader.join(60)
        match = re.match(r"Serving http://([^/:]+):(\d+)(/\S*)", lines[0]) if lines else None
        if not match:
            self.kill()
            raise StepFailure(f"the gateway did not start within 60 s (log: {log_path})")
        self.host, self.port, self.root = match.group(1), int(match.group(2)), match.group(3)
        if not self.root.endswith("/"):
            self.root += "/"

    def _read_stdout(self, lines):
        first = self.process.stdout.readline().decode("utf-8", "replace")
        lines.append(first)
        threading.Thread(target=self.process.stdout.read, daemon=True).start()  # drains the rest

    def alive(self):
        return self.process.poll() is None

    def status(self, field):
        """A /proc/PID/status figure in kB (VmRSS, VmHWM), or None once the process is gone."""
        return proc_memory.status_fields(self.pid, (field,)).get(field)

    def reset_peak(self):
        """Makes VmHWM the current RSS, so that it then shows one request's peak."""
        return proc_memory.reset_peak_rss(self.pid)

    def kill(self):
        if self.alive():
            self.process.kill()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            pass
        self._forget()

    def stop(self):
        """SIGTERM; returns the seconds it took, or None when the gateway was still running after
        SIGTERM_DEADLINE (it is then killed with SIGKILL)."""
        if not self.alive():
            self._forget()
            return 0.0
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(SIGTERM_DEADLINE)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        self._forget()
        return time.monotonic() - started

    def _forget(self):
        with Gateway.running_lock:
            Gateway.running.discard(self)
        if not self.log_file.closed:
            self.log_file.close()

    @staticmethod
    def kill_all():
        with Gateway.running_lock:
            gateways = list(Gateway.running)
        for gateway in gateways:
            gateway.kill()


class Watchdog:
    """Kills every running gateway with SIGKILL once a step has overrun its time: the step's
    clients then see their connections fail, so a wedged gateway ends the step instead of
    hanging it."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.fired = False
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True

    def _fire(self):
        self.fired = True
        Gateway.starts_refused = True
        log(f"watchdog: the step overran {self.seconds:.0f} s; killing the gateway")
        Gateway.kill_all()

    def __enter__(self):
        Gateway.starts_refused = False
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()


# Talking to the gateway

def encode(path):
    return urllib.parse.quote(path, safe=PATH_SAFE)


class Client:
    """One keep-alive connection; every request bounded by `timeout`."""

    def __init__(self, gateway, timeout=REQUEST_TIMEOUT):
        self.gateway, self.timeout = gateway, timeout
        self.connection = None

    def send(self, method, path, body=None, headers=None):
        """(status, body bytes, seconds); raises OSError or HTTPException when there is no answer."""
        headers = dict(headers or {})
        headers.setdefault("Accept", "application/json")
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.gateway.host, self.gateway.port, timeout=self.timeout)
        started = time.monotonic()
        try:
            self.connection.request(method, self.gateway.root + encode(path), body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return response.status, data, time.monotonic() - started

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class Model(MetadataModel):
    """The schema as the soak steps use it."""

    def marker_property(self, entity_set):
        """A string property, not part of the key, long enough to hold a unique marker: the
        writes set it, and the checks read it back."""
        entity_type = self.type_of(entity_set)
        for name, edm_type in entity_type["properties"].items():
            length = entity_type["max_length"].get(name)
            if (edm_type == "Edm.String" and name not in entity_type["keys"]
                    and (length is None or length == "Max" or int(length) >= 32)):
                return name
        return None


def rows_of(answer):
    return answer["results"] if isinstance(answer, dict) else answer


class Service:
    """The model and a sample of each set's entities, read once from a gateway; the requests
    the steps send are made of them."""

    def __init__(self, gateway):
        client = Client(gateway)
        status, metadata, _ = client.send("GET", "$metadata", headers={"Accept": "application/xml"})
        if status != 200:
            raise StepFailure(f"$metadata answered {status}")
        self.model = Model(metadata)
        self.entities = {}
        for entity_set in self.model.sets:
            status, data, _ = client.send("GET", f"{entity_set}?$top=100")
            if status != 200:
                raise StepFailure(f"{entity_set}?$top=100 answered {status}")
            self.entities[entity_set] = rows_of(json.loads(data)["d"])
        client.close()
        self.root = gateway.root

    def key_of(self, entity_set, entity):
        entity_type = self.model.type_of(entity_set)
        parts = [(k, key_literal(entity[k], entity_type["properties"][k])) for k in entity_type["keys"]]
        return parts[0][1] if len(parts) == 1 else ",".join(f"{k}={v}" for k, v in parts)

    def path_of(self, uri):
        """The part of an entity's URI after the service root."""
        return uri[uri.index(self.root) + len(self.root):]

    def read_paths(self, draw):
        """(accept, path) pairs: keyed reads, pages, one- and two-level $expand, $filter with
        $orderby and $inlinecount, filters through navigation, $select, $count, navigation and
        $links paths, $value, Atom, $metadata and the service document; all answered 2xx."""
        paths = [("application/xml", "$metadata"), ("application/json", "")]
        for entity_set, rows in self.entities.items():
            if not rows:
                continue
            entity_type = self.model.type_of(entity_set)
            strings = [n for n, t in entity_type["properties"].items() if t == "Edm.String" and n not in entity_type["keys"]]
            targets = entity_type["targets"]
            paths += [("application/json", f"{entity_set}?$top=20"), ("application/json", f"{entity_set}/$count"),
                      ("application/json", f"{entity_set}?$select={','.join(list(entity_type['properties'])[:2])}&$top=10&$skip=5")]
            for _ in range(12):
                row = draw.choice(rows)
                key = self.key_of(entity_set, row)
                paths.append(("application/json", f"{entity_set}({key})"))
                paths.append(("application/atom+xml", f"{entity_set}({key})"))
                for nav, (target, _many) in targets.items():
                    paths.append(("application/json", f"{entity_set}({key})/{nav}"))
                    paths.append(("application/json", f"{entity_set}({key})/$links/{nav}"))
                    deeper = [n for n in self.model.type_of(target)["targets"]] if target else []
                    expansion = nav + (f",{nav}/{draw.choice(deeper)}" if deeper else "")
                    paths.append(("application/json", f"{entity_set}({key})?$expand={expansion}"))
                for name in strings:
                    value = row.get(name)
                    if isinstance(value, str):
                        literal = "'" + value.replace("'", "''") + "'"
                        order = draw.choice(list(entity_type["properties"]))
                        paths.append(("application/json", f"{entity_set}?$filter={name} eq {literal}"
                                                          f"&$orderby={order}&$top=20&$inlinecount=allpages"))
                        paths.append(("text/plain", f"{entity_set}({key})/{name}/$value"))
                for nav, (target, many) in targets.items():
                    if many or not target or not self.entities.get(target):
                        continue
                    target_type = self.model.type_of(target)
                    for name, edm_type in target_type["properties"].items():
                        value = draw.choice(self.entities[target]).get(name)
                        if edm_type == "Edm.String" and isinstance(value, str):
                            literal = "'" + value.replace("'", "''") + "'"
                            paths.append(("application/json", f"{entity_set}?$filter={nav}/{name} eq {literal}&$top=50"))
                            break
        draw.shuffle(paths)
        return paths

    def new_entity(self, entity_set, draw, marker):
        """A copy of a sample entity's properties with the marker set, bound to a sample entity
        of each set it has one of."""
        entity_type = self.model.type_of(entity_set)
        source = draw.choice(self.entities[entity_set])
        body = {n: source[n] for n in entity_type["properties"] if n not in entity_type["generated"] and n in source}
        body[self.model.marker_property(entity_set)] = marker
        for nav, (target, many) in entity_type["targets"].items():
            if not many and target and self.entities.get(target):
                key = self.key_of(target, draw.choice(self.entities[target]))
                body[nav] = {"__metadata": {"uri": f"{target}({key})"}}
        return body

    def writable_sets(self, gateway):
        """The sets a copied entity can be posted to (and that have a marker property); the
        copies made to find out are deleted again."""
        client, draw, sets = Client(gateway), random.Random(1), []
        for entity_set in self.model.sets:
            if not self.entities.get(entity_set) or not self.model.marker_property(entity_set):
                continue
            status, data, _ = client.send("POST", entity_set, body=self.new_entity(entity_set, draw, "soak-probe"))
            if status == 201:
                sets.append(entity_set)
                client.send("DELETE", self.path_of(json.loads(data)["d"]["__metadata"]["uri"]))
        client.close()
        return sets


# Writes, and what the gateway acknowledged of them

ABSENT = object()  # the entity is deleted
NOTHING = object()  # no write in flight


class Entry:
    """An entity the writers created: its marker property's acknowledged value (ABSENT once a
    DELETE was acknowledged) and a write that was in flight when the gateway died."""

    def __init__(self, entity_set, prop, value):
        self.entity_set, self.prop, self.value, self.pending = entity_set, prop, value, NOTHING


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.entries = {}  # path -> Entry
        self.pending_posts = []  # (set, prop, [markers]): posted or batched, not acknowledged
        self.counts = {"POST": 0, "MERGE": 0, "DELETE": 0, "$batch": 0}


class Writer:
    """One thread's writes: POST copies, MERGE and DELETE of its own entities, change sets of
    three POSTs, and (for step 2) reads. It records a write before sending it and what the
    gateway acknowledged after."""

    def __init__(self, service, gateway, ledger, sets, name, draw, read_paths=None, read_share=0.0):
        self.service, self.ledger, self.sets, self.name, self.draw = service, ledger, sets, name, draw
        self.client = Client(gateway)
        self.read_paths, self.read_share = read_paths or [], read_share
        self.own = []  # paths of this writer's live entities
        self.serial = 0
        self.latencies, self.reads, self.errors = [], 0, []

    def marker(self):
        self.serial += 1
        return f"soak-{self.name}-{self.serial}"

    def check(self, what, status, expected, data):
        if status != expected:
            raise StepFailure(f"{what}: {status} (expected {expected}): {data[:200]!r}")

    def step(self):
        choice = self.draw.random()
        if self.read_paths and choice < self.read_share:
            accept, path = self.draw.choice(self.read_paths)
            status, data, seconds = self.client.send("GET", path, headers={"Accept": accept})
            if not 200 <= status < 300:
                raise StepFailure(f"GET {path}: {status}: {data[:200]!r}")
            self.latencies.append(seconds)
            self.reads += 1
            return
        choice = self.draw.random()
        if self.own and choice < 0.3:
            self.merge()
        elif self.own and choice < 0.45:
            self.delete()
        elif choice < 0.8:
            self.post()
        else:
            self.batch()

    def post(self):
        entity_set = self.draw.choice(self.sets)
        prop, marker = self.service.model.marker_property(entity_set), self.marker()
        body = self.service.new_entity(entity_set, self.draw, marker)
        pending = (entity_set, prop, [marker])
        with self.ledger.lock:
            self.ledger.pending_posts.append(pending)
        status, data, seconds = self.client.send("POST", entity_set, body=body)
        self.check(f"POST {entity_set}", status, 201, data)
        path = self.service.path_of(json.loads(data)["d"]["__metadata"]["uri"])
        with self.ledger.lock:
            self.ledger.pending_posts.remove(pending)
            self.ledger.entries[path] = Entry(entity_set, prop, marker)
            self.ledger.counts["POST"] += 1
        self.own.append(path)
        self.latencies.append(seconds)

    def merge(self):
        path = self.draw.choice(self.own)
        entry, marker = self.ledger.entries[path], self.marker()
        with self.ledger.lock:
            entry.pending = marker
        status, data, seconds = self.client.send("MERGE", path, body={entry.prop: marker})
        self.check(f"MERGE {path}", status, 204, data)
        with self.ledger.lock:
            entry.value, entry.pending = marker, NOTHING
            self.ledger.counts["MERGE"] += 1
        self.latencies.append(seconds)

    def delete(self):
        path = self.draw.choice(self.own)
        entry = self.ledger.entries[path]
        with self.ledger.lock:
            entry.pending = ABSENT
        status, data, seconds = self.client.send("DELETE", path)
        self.check(f"DELETE {path}", status, 204, data)
        with self.ledger.lock:
            entry.value, entry.pending = ABSENT, NOTHING
            self.ledger.counts["DELETE"] += 1
        self.own.remove(path)
        self.latencies.append(seconds)

    def batch(self):
        """A change set of three POSTs to one set: all of them are applied, or none."""
        entity_set = self.draw.choice(self.sets)
        prop = self.service.model.marker_property(entity_set)
        markers = [self.marker() for _ in range(3)]
        parts = []
        for number, marker in enumerate(markers, 1):
            body = json.dumps(self.service.new_entity(entity_set, self.draw, marker))
            parts.append(f"--changeset\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
                         f"Content-ID: {number}\r\n\r\nPOST {entity_set} HTTP/1.1\r\nContent-Type: application/json\r\n"
                         f"Accept: application/json\r\nContent-Length: {len(body.encode())}\r\n\r\n{body}\r\n")
        text = ("--batch\r\nContent-Type: multipart/mixed; boundary=changeset\r\n\r\n"
                + "".join(parts) + "--changeset--\r\n\r\n--batch--\r\n")
        pending = (entity_set, prop, markers)
        with self.ledger.lock:
            self.ledger.pending_posts.append(pending)
        status, data, seconds = self.client.send("POST", "$batch", body=text.encode(),
                                                 headers={"Content-Type": "multipart/mixed; boundary=batch"})
        self.check("$batch", status, 202, data)
        statuses = re.findall(rb"HTTP/1\.1 (\d{3})", data)
        if statuses != [b"201"] * 3:
            raise StepFailure(f"$batch change set answered {[s.decode() for s in statuses]}: {data[:300]!r}")
        paths = [self.service.path_of(entity["__metadata"]["uri"]) for entity in json_bodies(data)]
        if len(paths) != 3:
            raise StepFailure(f"$batch change set: {len(paths)} entities in the answer, 3 expected")
        with self.ledger.lock:
            self.ledger.pending_posts.remove(pending)
            for path, marker in zip(paths, markers):
                self.ledger.entries[path] = Entry(entity_set, prop, marker)
            self.ledger.counts["$batch"] += 1
        self.own.extend(paths)
        self.latencies.append(seconds)


def json_bodies(multipart):
    """The JSON entities inside a $batch answer's parts."""
    decoder, found, index = json.JSONDecoder(), [], 0
    text = multipart.decode("utf-8", "replace")
    while True:
        index = text.find("\r\n\r\n{", index)
        if index < 0:
            return found
        value, end = decoder.raw_decode(text, index + 4)
        found.append(value.get("d", value))
        index = end


def verify(service, gateway, ledger, threads=4):
    """Reads back every entity in the ledger: an acknowledged value must be there (or the one in
    flight when the gateway died), a deleted entity gone, and an unacknowledged POST or change set
    there wholly or not at all. Returns (checked, [problems]); in-flight writes are resolved to
    what the gateway kept."""
    items = list(ledger.entries.items())
    problems, lock = [], threading.Lock()

    def check_entries(chunk):
        client = Client(gateway)
        for path, entry in chunk:
            status, data, _ = client.send("GET", path)
            if status == 200:
                found = json.loads(data)["d"].get(entry.prop)
            elif status == 404:
                found = ABSENT
            else:
                with lock:
                    problems.append(f"GET {path}: {status}")
                continue
            allowed = [entry.value] + ([entry.pending] if entry.pending is not NOTHING else [])
            if found not in allowed:
                describe = lambda v: "deleted" if v is ABSENT else repr(v)
                with lock:
                    problems.append(f"{path}: {describe(found)}, acknowledged {describe(entry.value)}")
            entry.value, entry.pending = found, NOTHING
        client.close()

    chunks = [items[n::threads] for n in range(threads)]
    workers = [threading.Thread(target=guarded, args=(check_entries, problems, lock, chunk)) for chunk in chunks]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    client = Client(gateway)
    for entity_set, prop, markers in ledger.pending_posts:
        condition = " or ".join(f"{prop} eq '{m}'" for m in markers)
        status, data, _ = client.send("GET", f"{entity_set}/$count?$filter={condition}")
        if status != 200 or int(data) not in (0, len(markers)):
            problems.append(f"an unacknowledged write of {len(markers)} {entity_set} left {data[:50]!r} ({status})")
    client.close()
    ledger.pending_posts.clear()
    return len(items), problems


def guarded(function, problems, lock, *args):
    try:
        function(*args)
    except (OSError, http.client.HTTPException, ValueError, StepFailure) as error:
        with lock:
            problems.append(f"{type(error).__name__}: {error}")


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def answers(gateway, path="", deadline=ANSWER_DEADLINE):
    """Whether a new connection gets a 2xx for `path` within `deadline` seconds."""
    try:
        status, _, _ = Client(gateway, timeout=deadline).send("GET", path)
        return 200 <= status < 300
    except (OSError, http.client.HTTPException):
        return False


def stop_checked(gateway, figures):
    """SIGTERM, which must stop the gateway within SIGTERM_DEADLINE seconds."""
    seconds = gateway.stop()
    if seconds is None:
        raise StepFailure(f"{figures}; SIGTERM did not stop the gateway within {SIGTERM_DEADLINE:g} s (killed)")
    return seconds


# The steps

def step_reads(args, work):
    gateway = Gateway(args, os.path.join(work, "reads.sqlite"), os.path.join(work, "reads.log"))
    service = Service(gateway)
    paths_file = os.path.join(work, "read-paths.txt")
    read_paths = service.read_paths(random.Random(args.random_seed))
    with open(paths_file, "w") as out:
        for accept, path in read_paths:
            out.write(f"{accept}\t{encode(path)}\n")
    env = dict(os.environ, BENCH_WRK_DIR=WRK_DIR, SOAK_PATHS=paths_file)
    command = ["wrk", "-t2", "-c64", f"-d{args.seconds}s", "--timeout", "5s",
               "-s", os.path.join(WRK_DIR, "soak_reads.lua"), f"http://{gateway.host}:{gateway.port}{gateway.root}"]
    try:
        completed = subprocess.run(command, env=env, capture_output=True, text=True,
                                   timeout=args.seconds + 30, preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        raise StepFailure(f"wrk did not finish within {args.seconds + 30} s")
    result = next((json.loads(line.split(" ", 1)[1]) for line in completed.stdout.splitlines()
                   if line.startswith("BENCH_RESULT ")), None)
    if result is None:
        raise StepFailure(f"wrk gave no result (exit {completed.returncode}): {completed.stderr[-300:]}")
    seconds = result["duration_us"] / 1e6
    errors = result["connect_errors"] + result["read_errors"] + result["write_errors"] + result["timeouts"]
    figures = (f"{seconds:.0f} s, 64 connections, {len(set(read_paths))} distinct reads: {result['requests']} requests, {result['requests'] / seconds:.0f} req/s, "
               f"errors {errors}, non-2xx {result['non2xx']}, p99 {result['p99_us'] / 1000:.1f} ms")
    if not gateway.alive():
        raise StepFailure(f"{figures}; the gateway died")
    if not answers(gateway):
        raise StepFailure(f"{figures}; the gateway no longer answers within {ANSWER_DEADLINE:g} s")
    stop_checked(gateway, figures)
    if errors or result["non2xx"] or not result["requests"]:
        raise StepFailure(figures)
    return figures


def run_writers(writers, until, stop_event=None):
    """Runs each writer's steps until `until()` or its first failure; returns the failures."""
    failures, lock = [], threading.Lock()

    def loop(writer):
        try:
            while not until() and not (stop_event and stop_event.is_set()):
                writer.step()
        except (OSError, http.client.HTTPException, ValueError, KeyError, StepFailure) as error:
            with lock:
                failures.append(f"{writer.name}: {type(error).__name__}: {error}")
        finally:
            writer.client.close()

    threads = [threading.Thread(target=loop, args=(w,), daemon=True) for w in writers]
    for thread in threads:
        thread.start()
    return threads, failures


def step_writes(args, work):
    gateway = Gateway(args, os.path.join(work, "writes.sqlite"), os.path.join(work, "writes.log"))
    service = Service(gateway)
    sets = service.writable_sets(gateway)
    if not sets:
        raise StepFailure("no entity set takes a copy of its own entities; nothing to write")
    read_paths = service.read_paths(random.Random(args.random_seed))
    ledger = Ledger()
    writers = [Writer(service, gateway, ledger, sets, f"w{n}", random.Random(args.random_seed * 100 + n),
                      read_paths, read_share=0.5) for n in range(16)]
    started = time.monotonic()
    deadline = started + args.seconds
    threads, failures = run_writers(writers, lambda: time.monotonic() >= deadline)
    for thread in threads:
        thread.join(args.seconds + 3 * REQUEST_TIMEOUT)
    elapsed = time.monotonic() - started
    if any(thread.is_alive() for thread in threads):
        failures.append("a client thread did not finish")
    checked, problems = verify(service, gateway, ledger)
    writes = sum(ledger.counts.values())
    reads = sum(w.reads for w in writers)
    latencies = [s for w in writers for s in w.latencies]
    figures = (f"{elapsed:.0f} s, 16 clients, writes to {','.join(sets)}: "
               f"{writes} acknowledged writes ({', '.join(f'{k} {v}' for k, v in ledger.counts.items())}), "
               f"{reads} reads, {(writes + reads) / elapsed:.0f} req/s, errors {len(failures)}, "
               f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms; {checked} entities checked, wrong or lost {len(problems)}")
    if not answers(gateway):
        raise StepFailure(f"{figures}; the gateway no longer answers within {ANSWER_DEADLINE:g} s")
    stop_checked(gateway, figures)
    if failures or problems or not writes:
        raise StepFailure(f"{figures}; first: {(failures + problems)[:3]}")
    return figures


def step_kill(args, work):
    database = os.path.join(work, "kill.sqlite")
    ledger, service, sets = Ledger(), None, None
    checked_total, problems_all, restarts = 0, [], []
    draw = random.Random(args.random_seed)
    for round_number in range(1, args.rounds + 1):
        started = time.monotonic()
        gateway = Gateway(args, database, os.path.join(work, "kill.log"))
        restarts.append(time.monotonic() - started)
        if service is None:
            service = Service(gateway)
            sets = service.writable_sets(gateway)
            if not sets:
                raise StepFailure("no entity set takes a copy of its own entities; nothing to write")
        else:
            checked, problems = verify(service, gateway, ledger)
            checked_total += checked
            problems_all += [f"round {round_number - 1}: {p}" for p in problems]
        before = sum(ledger.counts.values())
        writers = [Writer(service, gateway, ledger, sets, f"r{round_number}w{n}", random.Random(draw.random()))
                   for n in range(8)]
        load_deadline = time.monotonic() + 20
        threads, failures = run_writers(writers, lambda: False)
        target = draw.randint(200, 1000)
        while (sum(ledger.counts.values()) - before < target and time.monotonic() < load_deadline
               and not failures):
            time.sleep(0.01)
        acknowledged = sum(ledger.counts.values()) - before
        if failures:
            gateway.kill()
            for thread in threads:
                thread.join(3 * REQUEST_TIMEOUT)
            raise StepFailure(f"round {round_number}: a write failed before the kill: {failures[0]}")
        gateway.kill()
        for thread in threads:
            thread.join(3 * REQUEST_TIMEOUT)
        if any(thread.is_alive() for thread in threads):
            raise StepFailure(f"round {round_number}: a writer still waited {3 * REQUEST_TIMEOUT:g} s after the kill")
        log(f"  round {round_number}: {acknowledged} writes acknowledged before kill -9 "
            f"(restart {restarts[-1]:.2f} s, {len(ledger.pending_posts)} inserts and "
            f"{sum(e.pending is not NOTHING for e in ledger.entries.values())} changes in flight)")
        if acknowledged < 20:
            raise StepFailure(f"round {round_number}: only {acknowledged} writes acknowledged in 20 s; no write load")
    gateway = Gateway(args, database, os.path.join(work, "kill.log"))
    checked, problems = verify(service, gateway, ledger)
    checked_total += checked
    problems_all += [f"round {args.rounds}: {p}" for p in problems]
    figures_head = (f"{args.rounds} rounds of kill -9 under 8 writers: "
                    f"{sum(ledger.counts.values())} acknowledged writes "
                    f"({', '.join(f'{k} {v}' for k, v in ledger.counts.items())}), "
                    f"{checked_total} entity checks, wrong or lost {len(problems_all)}")
    stop_checked(gateway, figures_head)
    check = sqlite3.connect(database, timeout=10)
    try:
        integrity = check.execute("PRAGMA integrity_check").fetchall()
        foreign = check.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        check.close()
    figures = (f"{figures_head}, integrity {integrity[0][0] if len(integrity) == 1 else integrity[:3]}, "
               f"foreign-key violations {len(foreign)}, restart {max(restarts):.2f} s at most")
    if problems_all or integrity != [("ok",)] or foreign:
        raise StepFailure(f"{figures}; first: {problems_all[:3]}")
    return figures


def raw_exchange(sock, request, deadline):
    """Sends `request` on a connected socket and waits until `deadline` for the answer's status
    line: returns ("answered", status), ("closed", reason) or ("silent", None)."""
    try:
        sock.setblocking(True)
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        sock.sendall(request)
        received = b""
        while b"\r\n" not in received:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(4096)
            if not chunk:
                return "closed", "closed by the gateway"
            received += chunk
        match = re.match(rb"HTTP/1\.[01] (\d{3})", received)
        return ("answered", int(match.group(1))) if match else ("closed", f"garbled: {received[:40]!r}")
    except socket.timeout:
        return "silent", None
    except OSError as error:
        return "closed", error.strerror or str(error)


def step_flood(args, work):
    # All from one address: the per-client limit is lifted so that the flood meets the total.
    limit = args.max_connections
    extra = ["--max-connections", str(limit), "--max-connections-per-client", "0"]
    flood = 3 * limit
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = flood + limit + 256
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise StepFailure(f"the open-file limit is {hard}; a flood of {flood} needs {needed} (ulimit -n)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    gateway = Gateway(args, os.path.join(work, "flood.sqlite"), os.path.join(work, "flood.log"), extra)
    request = (f"GET {gateway.root} HTTP/1.1\r\nHost: {gateway.host}:{gateway.port}\r\n"
               f"Accept: application/json\r\n\r\n").encode()
    if not answers(gateway):
        raise StepFailure("the gateway did not answer before the flood")
    sockets, connected, refused = [], [], 0
    try:
        poller = select.poll()
        waiting = {}
        for _ in range(flood):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sockets.append(sock)
            code = sock.connect_ex((gateway.host, gateway.port))
            if code == 0:
                connected.append(sock)
            elif code in (115, 11):  # EINPROGRESS, EAGAIN
                waiting[sock.fileno()] = sock
                poller.register(sock, select.POLLOUT)
            else:
                refused += 1
        connect_deadline = time.monotonic() + 10
        while waiting and time.monotonic() < connect_deadline:
            for fd, _ in poller.poll(100):
                sock = waiting.pop(fd)
                poller.unregister(fd)
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                    connected.append(sock)
                else:
                    refused += 1
        unconnected = len(waiting)
        time.sleep(1)  # held, idle
        held = raw_exchange(connected[0], request, time.monotonic() + ANSWER_DEADLINE) if connected else ("closed", "none connected")
        fresh_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sockets.append(fresh_sock)
        fresh_deadline = time.monotonic() + ANSWER_DEADLINE
        try:
            fresh_sock.settimeout(ANSWER_DEADLINE)
            fresh_sock.connect((gateway.host, gateway.port))
            fresh = raw_exchange(fresh_sock, request, fresh_deadline)
        except socket.timeout:
            fresh = ("silent", None)
        except OSError as error:
            fresh = ("closed", error.strerror or str(error))
    finally:
        for sock in sockets:
            sock.close()
    after_deadline = time.monotonic() + ANSWER_DEADLINE
    after = ("silent", None)
    while time.monotonic() < after_deadline:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.settimeout(max(0.01, after_deadline - time.monotonic()))
            sock.connect((gateway.host, gateway.port))
            after = raw_exchange(sock, request, after_deadline)
        except socket.timeout:
            after = ("silent", None)
        except OSError as error:
            after = ("closed", error.strerror or str(error))
        finally:
            sock.close()
        if after[0] != "closed":
            break
        time.sleep(0.05)
    describe = lambda outcome: (f"{outcome[1]}" if outcome[0] == "answered" else
                                "no answer" if outcome[0] == "silent" else f"refused ({outcome[1]})")
    stop_seconds = gateway.stop()
    figures = (f"limit {limit}, {flood} connections opened: {len(connected)} connected, "
               f"{refused} refused, {unconnected} unconnected after 10 s; held connection: {describe(held)}, "
               f"new connection while flooded: {describe(fresh)}, after the flood: {describe(after)}; "
               + (f"SIGTERM stop {stop_seconds:.2f} s" if stop_seconds is not None else
                  f"SIGTERM did not stop it within {SIGTERM_DEADLINE:g} s (killed)"))
    failed = []
    if held != ("answered", 200):
        failed.append(f"a held connection got {describe(held)} within {ANSWER_DEADLINE:g} s")
    if fresh[0] == "silent":
        failed.append(f"a new connection was neither answered nor refused within {ANSWER_DEADLINE:g} s")
    elif fresh[0] == "answered" and not 200 <= fresh[1] < 300 and fresh[1] != 503:
        failed.append(f"a new connection while flooded got {fresh[1]}")
    if after != ("answered", 200):
        failed.append(f"after the flood a new request got {describe(after)} within {ANSWER_DEADLINE:g} s")
    if stop_seconds is None:
        failed.append("SIGTERM did not stop the gateway")
    if failed:
        raise StepFailure(f"{figures}; {'; '.join(failed)}")
    return figures


def amplifying_expansion(model):
    """The named case when the schema has it, else the six-step navigation path that goes
    through the most to-many navigations (each one multiplies the answer)."""
    entity_set, expansion = NAMED_EXPANSION
    current = entity_set
    for nav in expansion.split("/"):
        targets = model.type_of(current)["targets"] if current in model.sets else {}
        if nav not in targets:
            break
        current = targets[nav][0]
    else:
        return entity_set, expansion
    best = None
    for start in model.sets:
        stack = [(start, [], 0)]
        while stack:
            current, path, many = stack.pop()
            if len(path) == 6:
                if best is None or many > best[2]:
                    best = (start, path, many)
                continue
            for nav, (target, to_many) in model.type_of(current)["targets"].items():
                if target:
                    stack.append((target, path + [nav], many + to_many))
    if best is None:
        raise StepFailure("the schema has no navigation to expand")
    return best[0], "/".join(best[1])


def step_batch(args, work):
    gateway = Gateway(args, os.path.join(work, "batch.sqlite"), os.path.join(work, "batch.log"))
    service = Service(gateway)
    entity_set, expansion = amplifying_expansion(service.model)
    target = encode(f"{entity_set}?$expand={expansion}")
    part = (f"--batch\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
            f"GET {target} HTTP/1.1\r\nAccept: application/json\r\n\r\n\r\n")
    body = (part * BATCH_GETS + "--batch--\r\n").encode()
    rss_before = gateway.status("VmRSS")
    peak_known = gateway.reset_peak()
    started = time.monotonic()
    deadline = started + 120
    received, statuses, tail, outcome = 0, {}, b"", None
    connection = http.client.HTTPConnection(gateway.host, gateway.port, timeout=30)
    try:
        connection.request("POST", gateway.root + "$batch", body=body,
                           headers={"Content-Type": "multipart/mixed; boundary=batch", "Accept": "multipart/mixed"})
        response = connection.getresponse()
        outcome = response.status
        while time.monotonic() < deadline:
            chunk = response.read(1 << 16)
            if not chunk:
                break
            received += len(chunk)
            # Inner status lines, counted as the answer streams in: one may straddle two chunks,
            # and the 11 bytes kept are too few to hold a whole one, so none is counted twice.
            window = tail + chunk
            for code in re.findall(rb"HTTP/1\.1 (\d{3})", window):
                statuses[code.decode()] = statuses.get(code.decode(), 0) + 1
            tail = window[-11:]
        else:
            outcome = "no complete answer within 120 s"
    except (OSError, http.client.HTTPException) as error:
        outcome = f"{type(error).__name__}: {error}"
    finally:
        connection.close()
    seconds = time.monotonic() - started
    rss_after = gateway.status("VmRSS")
    peak = gateway.status("VmHWM") if peak_known else None
    alive = gateway.alive()
    stop_seconds = gateway.stop()
    if rss_before is None or rss_after is None:
        raise StepFailure(f"$batch of {BATCH_GETS} GET {entity_set}?$expand={expansion}: the gateway died ({outcome})")
    growth_kb = max(rss_after, peak or 0) - rss_before
    figures = (f"$batch of {BATCH_GETS} GET {entity_set}?$expand={expansion} ({len(body)} bytes): "
               f"{outcome}, {received / 1e6:.1f} MB answered in {seconds:.1f} s, inner "
               f"{', '.join(f'{k}: {v}' for k, v in sorted(statuses.items())) or 'none'}; RSS {rss_before / 1024:.0f} MB before, "
               f"{rss_after / 1024:.0f} MB after" + (f", {peak / 1024:.0f} MB at the peak" if peak else "")
               + f": +{growth_kb / 1024:.0f} MB (limit {RSS_GROWTH_LIMIT_MB})")
    failed = []
    if not isinstance(outcome, int) or outcome >= 500:
        failed.append(f"no proper answer ({outcome})")
    if any(code.startswith("5") for code in statuses):
        failed.append("an operation answered 5xx")
    if growth_kb >= RSS_GROWTH_LIMIT_MB * 1024:
        failed.append(f"RSS grew by {growth_kb / 1024:.0f} MB")
    if not alive:
        failed.append("the gateway died")
    if stop_seconds is None:
        failed.append(f"SIGTERM did not stop the gateway within {SIGTERM_DEADLINE:g} s (killed)")
    if failed:
        raise StepFailure(f"{figures}; {'; '.join(failed)}")
    return figures


STEPS = {
    1: ("reads", step_reads, lambda a: a.seconds + 90),
    2: ("writes", step_writes, lambda a: a.seconds + 150),
    3: ("kill -9", step_kill, lambda a: a.rounds * 60 + 60),
    4: ("flood", step_flood, lambda a: 90),
    5: ("$batch", step_batch, lambda a: 200),
}


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gateway", required=True, help="the dealer-gateway binary")
    parser.add_argument("--schema", default=os.path.join(REPO_DIR, "Schema", "CarDealer.edmx"))
    parser.add_argument("--seed", default=os.path.join(REPO_DIR, "SeedData"), help="the seed data folder")
    parser.add_argument("--seconds", type=int, default=60, help="length of steps 1 and 2 (default 60)")
    parser.add_argument("--steps", default="1,2,3,4,5", help="the steps to run, e.g. 1,3 (default all)")
    parser.add_argument("--rounds", type=int, default=10, help="kill -9 rounds of step 3 (default 10)")
    parser.add_argument("--max-connections", type=int, default=DEFAULT_CONNECTION_LIMIT,
                        help="the --max-connections step 4 gives the gateway and floods 3 times over "
                             f"(default {DEFAULT_CONNECTION_LIMIT})")
    parser.add_argument("--random-seed", type=int, default=32)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (databases, logs)")
    args = parser.parse_args()
    try:
        args.step_numbers = [int(s) for s in args.steps.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--steps {args.steps}: numbers from 1 to 5, separated by commas")
    if not args.step_numbers or any(s not in STEPS for s in args.step_numbers):
        parser.error(f"--steps {args.steps}: numbers from 1 to 5, separated by commas")
    if args.seconds < 1 or args.rounds < 1 or args.max_connections < 1:
        parser.error("--seconds, --rounds and --max-connections must be at least 1")
    args.gateway = os.path.abspath(args.gateway)
    if not os.access(args.gateway, os.X_OK):
        parser.error(f"{args.gateway} is not an executable")
    return args


def main():
    args = parse_arguments()
    signal.signal(signal.SIGTERM, lambda *_: (Gateway.kill_all(), sys.exit(1)))
    work = tempfile.mkdtemp(prefix="cardealer-soak-")
    started = time.monotonic()
    failed = []
    try:
        for number in args.step_numbers:
            name, run, budget = STEPS[number]
            log(f"step {number} ({name})...")
            step_started = time.monotonic()
            with Watchdog(budget(args)) as watchdog:
                try:
                    figures, verdict = run(args, work), "ok"
                except StepFailure as failure:
                    figures, verdict = str(failure), "FAILED"
                except (OSError, http.client.HTTPException, ValueError, KeyError, subprocess.SubprocessError) as error:
                    figures, verdict = f"{type(error).__name__}: {error}", "FAILED"
                finally:
                    Gateway.kill_all()
            if watchdog.fired:
                figures, verdict = f"wedged: overran {watchdog.seconds:.0f} s and was killed; {figures}", "FAILED"
            if verdict != "ok":
                failed.append(f"{number} ({name})")
            print(f"step {number} {name} [{verdict}, {time.monotonic() - step_started:.0f} s]: {figures}", flush=True)
    finally:
        Gateway.kill_all()
        if args.keep or failed:
            log(f"databases and gateway logs kept in {work}")
        else:
            subprocess.run(["rm", "-rf", work], check=False)
    total = time.monotonic() - started
    minutes, seconds = divmod(int(round(total)), 60)
    print(f"total {minutes}m{seconds:02d}s, steps {args.steps}: "
          + (f"FAILED: step {', step '.join(failed)}" if failed else "all passed"), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
