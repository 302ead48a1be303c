#!/usr/bin/env python3
"""The training run of the profile-guided release build (scripts/build-release).

Starts an instrumented dealer-gateway on a fresh database made from the schema and the seed data,
sends it a broad mix of OData requests for a few seconds and stops it with SIGTERM (so that the
profile runtime writes its counts at exit); with --mark-profiles it then marks the raw profiles as
context-sensitive (see mark_context_sensitive). Everything it asks for is derived from the service's own $metadata
and data, so no entity set is named here: keyed reads, pages, $expand one and two levels deep,
$filter with $orderby and $inlinecount, filters through navigation, $select, $count, navigation and
$links paths, paging by __next, Atom, $metadata and the service document, errors, and the writes
(POST, MERGE, DELETE, $batch with a change set). Each kind of request is drawn equally often, so
the profile stands for the service as a whole rather than for one benchmark scenario.

Usage: training-workload.py GATEWAY SCHEMA SEED_DIR WORK_DIR [--seconds S] [--min-requests N]
                            [--mark-profiles DIR]
The raw profiles land where LLVM_PROFILE_FILE says (set by the caller); --mark-profiles marks
those in DIR. Exits non-zero when the gateway fails to start or to stop cleanly, answers any
request with 5xx, serves fewer than N requests, or never answers some kind of request with
success (the errors with a 4xx): a training run that silently stopped covering part of the
service would leave that part unoptimised without anyone noticing.
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from odata_metadata import MetadataModel, key_literal  # noqa: E402

# Bits of the raw profile's version word (LLVM's InstrProfData.inc, VARIANT_MASK_IR_PROF and
# VARIANT_MASK_CSIR_PROF).
IR_PROFILE_FLAG = 1 << 56
CONTEXT_SENSITIVE_FLAG = 1 << 57
RAW_PROFILE_MAGIC = 0xFF6C70726F667281  # "\xfflprofr\x81", little-endian


def mark_context_sensitive(path):
    """Sets the IR and context-sensitive flags in a raw profile's header.

    The counters come from lld's --lto-cs-profile-generate, which instruments after the
    whole-program inlining. clang's -fcs-profile-generate would also define the variable that
    tells the profile runtime so; swiftc has no such flag, so the runtime writes the plain
    front-end version word, and lld's --lto-cs-profile-file would ignore the merged profile as
    not context-sensitive. The counters themselves are the context-sensitive ones."""
    with open(path, "r+b") as raw:
        magic, version = struct.unpack("<QQ", raw.read(16))
        if magic != RAW_PROFILE_MAGIC:
            raise SystemExit(f"{path}: not an LLVM raw profile")
        raw.seek(8)
        raw.write(struct.pack("<Q", version | IR_PROFILE_FLAG | CONTEXT_SENSITIVE_FLAG))


def rows_of(answer):
    """A collection's entities: a V1 answer is the array itself, a V2 one wraps it in results."""
    return answer["results"] if isinstance(answer, dict) else answer


class Workload:
    def __init__(self, base_url, model, seed):
        self.url = urllib.parse.urlsplit(base_url)
        self.root = self.url.path  # ends in "/"
        self.model = model
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.entities = {}  # set -> list of entities (JSON objects) read at the start
        self.statuses = {}
        self.failures = []
        self.disabled = set()
        self.current = threading.local()  # the kind of request a client thread is sending
        self.answered = {}  # kind -> answered as that kind expects at least once

    def connection(self):
        return http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=30)

    def send(self, connection, method, path, body=None, headers=None):
        headers = dict(headers or {})
        headers.setdefault("Accept", "application/json")
        headers.setdefault("DataServiceVersion", "2.0")
        headers.setdefault("MaxDataServiceVersion", "2.0")
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        # Percent-encoded here, in one place: spaces and quotes in filters and key literals.
        connection.request(method, self.root + urllib.parse.quote(path, safe="/?&=$(),'*:@;!"),
                           body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        kind = getattr(self.current, "kind", None)
        expected = (400 <= response.status < 500) if kind == "errors" else (200 <= response.status < 300)
        with self.lock:
            self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
            if kind:
                self.answered[kind] = self.answered.get(kind, False) or expected
            if response.status >= 500:
                self.failures.append(f"{method} {path}: {response.status} {data[:200]!r}")
        return response.status, data

    # The data the requests are made of.

    def load(self, connection):
        for entity_set, entity_type in self.model.sets.items():
            status, data = self.send(connection, "GET", f"{entity_set}?$top=100")
            if status == 200:
                self.entities[entity_set] = rows_of(json.loads(data)["d"])

    def key_of(self, entity_set, entity):
        entity_type = self.model.types[self.model.sets[entity_set]]
        parts = [(k, key_literal(entity[k], entity_type["properties"][k])) for k in entity_type["keys"]]
        return parts[0][1] if len(parts) == 1 else ",".join(f"{k}={v}" for k, v in parts)

    def any_key(self, entity_set):
        rows = self.entities.get(entity_set)
        return self.key_of(entity_set, self.random.choice(rows)) if rows else None

    def string_value(self, entity_set):
        """A (property, value) of a string property some entity of the set has."""
        entity_type = self.model.types[self.model.sets[entity_set]]
        names = [n for n, t in entity_type["properties"].items()
                 if t == "Edm.String" and n not in entity_type["keys"]]
        rows = self.entities.get(entity_set) or []
        candidates = [(n, row[n]) for row in rows for n in names if isinstance(row.get(n), str)]
        return self.random.choice(candidates) if candidates else None

    def navigation(self, entity_set, to_many=None):
        entity_type = self.model.types[self.model.sets[entity_set]]
        return [(nav, target) for nav, (target, many) in entity_type["targets"].items()
                if target and (to_many is None or many == to_many)]

    def literal(self, value):
        return "'" + value.replace("'", "''") + "'"

    # The kinds of request, each a function of the connection and a set.

    def keyed(self, c, s):
        key = self.any_key(s)
        if key: self.send(c, "GET", f"{s}({key})")

    def page(self, c, s):
        self.send(c, "GET", f"{s}?$top=20")

    def expand(self, c, s):
        key, navs = self.any_key(s), self.navigation(s)
        if not key or not navs: return
        nav, target = self.random.choice(navs)
        deeper = [f"{nav}/{n}" for n, _ in self.navigation(target)]
        expansion = ",".join([nav] + deeper[:1])
        self.send(c, "GET", f"{s}({key})?$expand={expansion}")

    def query(self, c, s):
        found = self.string_value(s)
        if not found: return
        name, value = found
        other = [n for n in self.model.types[self.model.sets[s]]["properties"] if n != name]
        order = self.random.choice(other) if other else name
        self.send(c, "GET", f"{s}?$filter={name} eq {self.literal(value)}"
                            f"&$orderby={order}&$top=20&$inlinecount=allpages")

    def filter_through(self, c, s):
        # Set?$filter=nav/nav/property eq '...'&$top=50&$expand=<a to-many navigation>
        singles = self.navigation(s, to_many=False)
        if not singles: return
        nav, target = self.random.choice(singles)
        path, found = nav, self.string_value(target)
        further = self.navigation(target, to_many=False)
        if further and self.random.random() < 0.5:
            nav2, target2 = self.random.choice(further)
            found2 = self.string_value(target2)
            if found2: path, target, found = f"{nav}/{nav2}", target2, found2
        if not found: return
        name, value = found
        expansion = [n for n, _ in self.navigation(s) if n != nav][:1]
        query = f"$filter={path}/{name} eq {self.literal(value)}&$top=50"
        if expansion: query += f"&$expand={expansion[0]}"
        self.send(c, "GET", f"{s}?{query}")

    def select_count_and_paths(self, c, s):
        key = self.any_key(s)
        names = list(self.model.types[self.model.sets[s]]["properties"])[:2]
        self.send(c, "GET", f"{s}?$select={','.join(names)}&$top=10&$skip=5")
        self.send(c, "GET", f"{s}/$count")
        navs = self.navigation(s)
        if key and navs:
            nav, _ = self.random.choice(navs)
            self.send(c, "GET", f"{s}({key})/{nav}")
            self.send(c, "GET", f"{s}({key})/$links/{nav}")
        if key and names:
            self.send(c, "GET", f"{s}({key})/{names[-1]}/$value")

    def pages(self, c, s):
        path = s
        for _ in range(4):
            status, data = self.send(c, "GET", path)
            if status != 200: return
            answer = json.loads(data)["d"]
            following = answer.get("__next") if isinstance(answer, dict) else None
            if not following: return
            path = urllib.parse.unquote(following[following.index(self.root) + len(self.root):])

    def other_representations(self, c, s):
        key = self.any_key(s)
        if key: self.send(c, "GET", f"{s}({key})", headers={"Accept": "application/atom+xml"})
        self.send(c, "GET", f"{s}?$top=5&$format=json")
        self.send(c, "GET", "$metadata", headers={"Accept": "application/xml"})
        self.send(c, "GET", "", headers={"Accept": "application/json"})

    def errors(self, c, s):
        self.send(c, "GET", f"{s}(999999999)")
        self.send(c, "GET", f"{s}?$filter=nosuchproperty eq 1")
        self.send(c, "GET", f"{s}?$top=x")

    def new_entity(self, s):
        """A copy of an existing entity's properties, bound to a related entity of each kind it
        has one of (any such entity, not necessarily the copied one's)."""
        rows = self.entities.get(s)
        if not rows: return None
        entity_type = self.model.types[self.model.sets[s]]
        source = self.random.choice(rows)
        body = {n: source[n] for n in entity_type["properties"]
                if n not in entity_type["generated"] and n in source}
        for nav, (target, many) in entity_type["targets"].items():
            if not many and target and self.entities.get(target):
                body[nav] = {"__metadata": {"uri": f"{target}({self.any_key(target)})"}}
        return body

    def write(self, c, s):
        if s in self.disabled: return
        body = self.new_entity(s)
        if body is None: return
        status, data = self.send(c, "POST", s, body=body)
        if status != 201:
            self.disabled.add(s)  # a set this generic copy cannot fill; the others still train
            return
        uri = json.loads(data)["d"]["__metadata"]["uri"]
        path = uri[uri.index(self.root) + len(self.root):]
        found = self.string_value(s)
        if found:
            self.send(c, "MERGE", path, body={found[0]: found[1]})
        if self.random.random() < 0.5:
            self.send(c, "DELETE", path)

    def batch(self, c, s):
        if s in self.disabled: return
        changes = [self.new_entity(s) for _ in range(3)]
        if not changes[0]: return
        key = self.any_key(s)
        parts = []
        for number, change in enumerate(changes, 1):
            body = json.dumps(change)
            parts.append(f"--changeset\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
                         f"Content-ID: {number}\r\n\r\nPOST {s} HTTP/1.1\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {len(body)}\r\n\r\n{body}\r\n")
        changeset = "".join(parts) + "--changeset--\r\n"
        text = (f"--batch\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
                f"GET {s}({key}) HTTP/1.1\r\nAccept: application/json\r\n\r\n\r\n"
                f"--batch\r\nContent-Type: multipart/mixed; boundary=changeset\r\n\r\n{changeset}\r\n--batch--\r\n")
        self.send(c, "POST", "$batch", body=text.encode(),
                  headers={"Content-Type": "multipart/mixed; boundary=batch"})

    def kinds(self):
        return [self.keyed, self.page, self.expand, self.query, self.filter_through,
                self.select_count_and_paths, self.pages, self.other_representations, self.errors,
                self.write, self.batch]

    def run(self, seconds, threads):
        deadline = time.monotonic() + seconds
        kinds, sets = self.kinds(), list(self.model.sets)

        def loop(seed):
            draw = random.Random(seed)
            connection = self.connection()
            try:
                while time.monotonic() < deadline:
                    kind = draw.choice(kinds)
                    self.current.kind = kind.__name__
                    kind(connection, draw.choice(sets))
            except Exception as error:  # reported as a failure of the training, not lost in a thread
                with self.lock:
                    self.failures.append(f"{type(error).__name__}: {error}")

        workers = [threading.Thread(target=loop, args=(n,)) for n in range(threads)]
        for worker in workers: worker.start()
        for worker in workers: worker.join()


def start_gateway(arguments, database):
    command = [arguments.gateway, "serve", "--schema", arguments.schema, "--seed", arguments.seed_dir,
               "--db", database, "--host", "127.0.0.1", "--port", "0", "--threads", "1",
               "--page-size", "50", "--log-level", "error"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    found = re.search(r"Serving (http://\S+)", line)
    if not found:
        process.kill()
        raise SystemExit(f"the instrumented gateway did not start: {line!r}")
    return process, found.group(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gateway")
    parser.add_argument("schema")
    parser.add_argument("seed_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--min-requests", type=int, default=1000)
    parser.add_argument("--mark-profiles", metavar="DIR")
    arguments = parser.parse_args()

    shutil.rmtree(arguments.work_dir, ignore_errors=True)
    os.makedirs(arguments.work_dir)
    process, base_url = start_gateway(arguments, os.path.join(arguments.work_dir, "training.sqlite"))
    try:
        workload = Workload(base_url, None, seed=6)
        connection = workload.connection()
        _, metadata = workload.send(connection, "GET", "$metadata", headers={"Accept": "application/xml"})
        workload.model = MetadataModel(metadata)
        workload.load(connection)
        workload.run(arguments.seconds, threads=2)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    served = sum(workload.statuses.values())
    print(f"training: {served} requests in {arguments.seconds:g} s, by status "
          + ", ".join(f"{status}: {count}" for status, count in sorted(workload.statuses.items()))
          + (f"; POST declined for {', '.join(sorted(workload.disabled))}" if workload.disabled else ""),
          file=sys.stderr)
    if workload.failures:
        raise SystemExit("the gateway failed during training:\n  " + "\n  ".join(workload.failures[:10]))
    if process.returncode != 0:
        raise SystemExit(f"the instrumented gateway exited with {process.returncode}")
    if served < arguments.min_requests:
        raise SystemExit(f"only {served} requests were served; too few to train on")
    unanswered = sorted(kind.__name__ for kind in workload.kinds() if not workload.answered.get(kind.__name__))
    if unanswered:
        raise SystemExit("never answered as expected: " + ", ".join(unanswered))
    if arguments.mark_profiles:
        raw = [os.path.join(arguments.mark_profiles, f) for f in os.listdir(arguments.mark_profiles)
               if f.endswith(".profraw")]
        if not raw:
            raise SystemExit(f"no raw profile was written to {arguments.mark_profiles}")
        for path in raw:
            mark_context_sensitive(path)


if __name__ == "__main__":
    main()
