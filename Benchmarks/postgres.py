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
import sqlite3
import subprocess

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


def psql(url, sql, stdin=None, rows_only=False):
    """Runs `sql` with psql; its output, only the rows' values with `rows_only`."""
    completed = subprocess.run(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1"] + (["-At"] if rows_only else [])
                               + ["-c", sql],
                               input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
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
