"""The benchmark's PostgreSQL side: a throw-away cluster and the data set loaded into it.

The cluster is the one the tests use (`scripts/postgres-cluster`: initdb into a new folder,
pg_ctl on a free port of 127.0.0.1, trust authentication, server settings left at their
defaults, so synchronous_commit is on). Its folder is put under the benchmark's results folder,
so that its WAL is written to the same disk as the SQLite files it is compared with.

The data set is the SQLite one of Benchmarks/generate_data.py, row for row: the tables are
created by `dealer-gateway init --database URL --no-seed` (the gateway's own PostgreSQL DDL),
every row is copied in with COPY through psql, then each identity key's sequence is moved past
the largest key, as the gateway does after seeding, and the tables are analyzed.
"""

import os
import re
import signal
import sqlite3
import subprocess
import tempfile
import time
import urllib.request

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
CLUSTER_SCRIPT = os.path.join(REPO_DIR, "scripts", "postgres-cluster")

# Principals before dependents, so that every foreign key finds its row.
TABLES = ("Maintenance", "Car", "Person", "PersonCar", "PersonCarMaintenance")

# Each identity key's sequence past the largest key loaded, and fresh statistics for the planner.
ADVANCE_IDENTITIES = """
DO $$
DECLARE identity record;
BEGIN
  FOR identity IN
    SELECT c.relname AS tab, a.attname AS col
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND a.attidentity <> '' AND NOT a.attisdropped
  LOOP
    EXECUTE format('SELECT setval(pg_get_serial_sequence(%L, %L), COALESCE((SELECT max(%I) FROM %I), 0) + 1, false)',
                   quote_ident(identity.tab), identity.col, identity.col, identity.tab);
  END LOOP;
END $$;
ANALYZE;
"""


class PostgresError(Exception):
    pass


class Cluster:
    """A PostgreSQL server of its own for one benchmark run, stopped and removed by stop()."""

    def __init__(self, parent):
        os.makedirs(parent, exist_ok=True)
        os.chmod(parent, 0o755)  # the server runs as `postgres` when this runs as root
        completed = subprocess.run([CLUSTER_SCRIPT, "start"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=180, env=dict(os.environ, TMPDIR=parent))
        if completed.returncode != 0:
            raise PostgresError(f"scripts/postgres-cluster start failed: {completed.stderr.strip()}")
        self.folder = completed.stdout.strip().splitlines()[-1]
        with open(os.path.join(self.folder, "url")) as url:
            self.server_url = url.read().strip()

    @property
    def log_path(self):
        """The server's log (pg_ctl -l)."""
        return os.path.join(self.folder, "server.log")

    def database_url(self, name):
        """The URI of database `name` on this server."""
        return self.server_url.rsplit("/", 1)[0] + "/" + name

    def create_database(self, name):
        psql(self.server_url, f'CREATE DATABASE "{name}" ENCODING \'UTF8\' TEMPLATE template0')
        return self.database_url(name)

    def stop(self):
        if self.folder:
            subprocess.run([CLUSTER_SCRIPT, "stop", self.folder], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=120)
            self.folder = None


def psql(url, sql, rows_only=False):
    """Runs `sql`, SQL and psql's own commands, with psql in one session; its output, only the
    rows' values with `rows_only`."""
    completed = subprocess.run(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1"] + (["-At"] if rows_only else [])
                               + ["-f", "-"],
                               input=sql.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
    if completed.returncode != 0:
        raise PostgresError(f"psql {sql[:120]!r}: {completed.stderr.decode('utf-8', 'replace').strip()}")
    return completed.stdout.decode()


def copy_text(value):
    """One field of COPY's text format."""
    if value is None:
        return "\\N"
    if isinstance(value, bytes):
        return "\\\\x" + value.hex()
    text = str(value)
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r"))


def copy_rows(url, table, column_list, rows):
    """Streams `rows` into `table` through psql's \\copy, in chunks, so that a million people
    never sit in memory as one text; returns how many were copied."""
    sql = f'\\copy "{table}" ({column_list}) FROM pstdin'
    process = subprocess.Popen(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    count = 0
    chunk = []
    try:
        for row in rows:
            chunk.append("\t".join(copy_text(value) for value in row))
            count += 1
            if len(chunk) >= 10_000:
                process.stdin.write(("\n".join(chunk) + "\n").encode())
                chunk = []
        if chunk:
            process.stdin.write(("\n".join(chunk) + "\n").encode())
    except BrokenPipeError:
        pass  # psql stopped reading: its error follows
    finally:
        try:
            process.stdin.close()
        except BrokenPipeError:
            pass
    error = process.stderr.read()
    process.stdout.read()
    process.wait(timeout=3600)
    if process.returncode != 0:
        raise PostgresError(f"copying {table}: {error.decode('utf-8', 'replace').strip()}")
    return count


def load_dataset(sqlite_path, url, gateway, schema):
    """Creates the gateway's tables in the empty database at `url` and copies every row of the
    SQLite data set into them; returns the rows per table."""
    init = [gateway, "init", "--schema", schema, "--database", url, "--no-seed"]
    completed = subprocess.run(init, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    if completed.returncode != 0:
        raise PostgresError(f"`{' '.join(init)}` failed (exit {completed.returncode}):\n"
                            f"{completed.stdout}{completed.stderr}")
    filled = [table for table in TABLES if psql(url, f'SELECT 1 FROM "{table}" LIMIT 1', rows_only=True).strip()]
    if filled:
        raise PostgresError(f"{', '.join(filled)} already hold rows: load into an empty database")
    source = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    counts = {}
    try:
        for table in TABLES:
            columns = [row[1] for row in source.execute(f'PRAGMA table_info("{table}")')]
            column_list = ", ".join(f'"{name}"' for name in columns)
            counts[table] = copy_rows(url, table, column_list,
                                      source.execute(f'SELECT {column_list} FROM "{table}"'))
    finally:
        source.close()
    psql(url, ADVANCE_IDENTITIES)
    return counts


# ------------------------------------------------------------ the gateway's statements alone
#
# A PostgreSQL read's yardstick: the statements the gateway sent to the server for one request,
# with the same parameters, run by pgbench on the same cluster with as many connections as a
# gateway has workers, and no HTTP, JSON or gateway around them. A gateway whose reads each wait
# for their own round trip cannot read faster than that on the same machine (it does the same
# work in the server and more beside it), so its rate over SQLite's bounds what a PostgreSQL
# read could reach here, as the C floor does for SQLite.

# One line of the server's log (scripts/postgres-cluster keeps log_line_prefix's default,
# "%m [%p] "): time, backend pid, severity and message. Lines that do not match continue the
# message before them.
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[(\d+)\] ([A-Z]+):  (.*)$")
# A statement the server finished, as log_min_duration_statement writes it: a simple query's, or
# the execute step of an extended query (a prepared statement, or one sent in a pipeline).
FINISHED = re.compile(r"^duration: [\d.]+ ms  (?:statement|execute [^:]+): (.*)$", re.S)
PARAMETER = re.compile(r"\$(\d+) = (NULL|'(?:[^']|'')*')")


class CapturedRead:
    """One read's statements in the order the server ran them, each with its parameters
    ({number: text}); a read of several statements begins with BEGIN and ends with COMMIT."""

    def __init__(self, statements):
        self.statements = statements

    def pgbench_script(self):
        """The read as a pgbench script and its variables (`-D name=value`): each parameter is a
        variable, which pgbench -M prepared binds as a parameter, as the gateway does. Several
        statements go in one pipeline and wait for the server once, as the gateway sends a read
        whose plan it has learned."""
        lines = []
        defines = {}
        for index, (sql, parameters) in enumerate(self.statements):
            def variable(match, index=index, parameters=parameters):
                number = int(match.group(1))
                name = f"s{index}p{number}"
                defines[name] = parameters[number]
                return ":" + name
            lines.append(re.sub(r"\$(\d+)", variable, sql).rstrip().rstrip(";") + ";")
        if len(lines) > 1:
            lines = ["\\startpipeline"] + lines + ["\\endpipeline"]
        return "\n".join(lines) + "\n", defines


def parse_statement_log(text, pids):
    """The statements that the backends `pids` finished, in the log's order: [(pid, sql,
    {number: value})]. Connection set-up (`SET ...`) is left out."""
    entries = []
    for line in text.split("\n"):
        match = LOG_LINE.match(line)
        if match:
            entries.append([int(match.group(1)), match.group(2), match.group(3)])
        elif entries:
            entries[-1][2] += "\n" + line
    finished = []
    last = None
    for pid, severity, message in entries:
        if pid not in pids:
            continue
        if severity == "LOG":
            statement = FINISHED.match(message)
            last = None
            if statement and not statement.group(1).lstrip().upper().startswith("SET "):
                last = (pid, statement.group(1).strip(), {})
                finished.append(last)
        elif severity == "DETAIL" and last is not None and message.startswith("parameters: "):
            for number, value in PARAMETER.findall(message):
                if value == "NULL":
                    raise PostgresError(f"a NULL parameter in {last[1][:80]!r}: pgbench cannot bind one")
                last[2][int(number)] = value[1:-1].replace("''", "'")
    return finished


def transaction_control(sql):
    """Whether `sql` begins or ends a transaction: "begin", "end" or None."""
    word = sql.split(None, 1)[0].upper()
    return "begin" if word in ("BEGIN", "START") else "end" if word in ("COMMIT", "ROLLBACK", "END") else None


def last_read(finished):
    """The last read among `finished` statements: from its BEGIN to its COMMIT, or one statement
    sent alone."""
    reads = []
    open_read = {}
    for pid, sql, parameters in finished:
        control = transaction_control(sql)
        if control == "begin":
            open_read[pid] = [(sql, parameters)]
        elif pid in open_read:
            open_read[pid].append((sql, parameters))
            if control == "end":
                reads.append(open_read.pop(pid))
        else:
            reads.append([(sql, parameters)])
    if not reads:
        raise PostgresError("the server logged no read of the gateway's")
    return CapturedRead(reads[-1])


def capture_read(server_url, database, log_path, send):
    """The statements of the read that `send()` makes a gateway serving `database` run: the
    server logs every statement while it runs (log_min_duration_statement = 0, for this cluster
    only and only meanwhile), and the last read of that database's backends is taken from the
    log."""
    psql(server_url, "ALTER SYSTEM SET log_min_duration_statement = 0")
    try:
        psql(server_url, "SELECT pg_reload_conf()")
        time.sleep(0.3)  # each backend takes the new setting from its next command
        with open(log_path, "rb") as log:
            start = log.seek(0, os.SEEK_END)
        send()
        time.sleep(0.3)
        pids = {int(pid) for pid in psql(server_url, "SELECT pid FROM pg_stat_activity WHERE datname = "
                                         + "'" + database.replace("'", "''") + "'", rows_only=True).split()}
        with open(log_path, "rb") as log:
            log.seek(start)
            text = log.read().decode("utf-8", "replace")
    finally:
        psql(server_url, "ALTER SYSTEM RESET log_min_duration_statement")
        psql(server_url, "SELECT pg_reload_conf()")
    return last_read(parse_statement_log(text, pids))


def capture_get(server_url, database, log_path, url):
    """The statements of the read a GET of `url` makes a gateway serving `database` run."""
    def send():
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()

    return capture_read(server_url, database, log_path, send)


def run_pgbench(url, read, clients, seconds, script_path):
    """`read` through pgbench -M prepared on `clients` connections for `seconds`: reads/s."""
    script, defines = read.pgbench_script()
    with open(script_path, "w") as file:
        file.write(script)
    command = (["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(clients),
                "-T", str(seconds), "-f", script_path]
               + [argument for name, value in defines.items() for argument in ("-D", f"{name}={value}")]
               + [url])
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=seconds + 60)
    rate = re.search(r"^tps = ([\d.]+)", completed.stdout, re.M)
    failed = re.search(r"^number of failed transactions: (\d+)", completed.stdout, re.M)
    if completed.returncode != 0 or not rate or (failed and failed.group(1) != "0"):
        raise PostgresError(f"pgbench failed (exit {completed.returncode}): "
                            f"{(completed.stderr or completed.stdout).strip()[-600:]}")
    return float(rate.group(1))


def first_columns(url, read):
    """Each statement of `read` run once through psql in one session, as PREPARE and EXECUTE
    with its parameters as literals (typed by the server from the statement, as pgbench's and
    the gateway's are): the first column of each statement's rows, [] for BEGIN and COMMIT."""
    commands = []
    for index, (sql, parameters) in enumerate(read.statements):
        if transaction_control(sql):
            commands.append(f"{sql};\n\\echo '-- {index}'")
            continue
        values = ", ".join("'" + parameters[number].replace("'", "''") + "'" for number in sorted(parameters))
        commands.append(f"PREPARE s{index} AS {sql};\n\\echo '-- {index}'\n"
                        f"EXECUTE s{index}{'(' + values + ')' if values else ''};")
    output = psql(url, "\n".join(commands), rows_only=True)
    columns = [[] for _ in read.statements]
    current = None
    for line in output.splitlines():
        if line.startswith("-- "):
            current = int(line[3:])
        elif current is not None and line and line not in ("BEGIN", "COMMIT", "PREPARE"):
            columns[current].append(line.split("|", 1)[0])
    return columns


def main():
    """`postgres.py capture`: the statements a gateway on this cluster runs for one GET, as the
    benchmark captures them, with the first column of each one's rows and pgbench's rate of
    them, as JSON (for the tests that hold the yardstick to the gateway's work)."""
    import argparse
    import json
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("command", choices=["capture"])
    parser.add_argument("--server", required=True, help="the cluster's libpq URI (any database)")
    parser.add_argument("--database", required=True, help="the gateway's database")
    parser.add_argument("--log", required=True, help="the server's log file")
    parser.add_argument("--url", required=True, help="the GET's absolute URL")
    parser.add_argument("--pgbench-seconds", type=int, default=1)
    args = parser.parse_args()
    # A parent may leave signals blocked (a test runner's thread), and the mask is inherited:
    # pgbench -T ends on SIGALRM.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())

    read = capture_get(args.server, args.database, args.log, args.url)
    database_url = args.server.rsplit("/", 1)[0] + "/" + args.database
    script, variables = read.pgbench_script()
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as file:
        rate = run_pgbench(database_url, read, 2, args.pgbench_seconds, file.name)
    print(json.dumps({"statements": [{"sql": sql, "parameters": {str(k): v for k, v in parameters.items()}}
                                     for sql, parameters in read.statements],
                      "firstColumns": first_columns(database_url, read),
                      "script": script, "variables": variables, "readsPerSecond": rate}))


if __name__ == "__main__":
    main()
