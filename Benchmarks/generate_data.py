#!/usr/bin/env python3
"""Generate the benchmark's car dealer data set, deterministically, at a chosen scale.

The table layout is not defined here: the gateway derives it from Schema/CarDealer.edmx
(`dealer-gateway init --schema ... --db ...` creates the empty tables). This script only fills the
existing tables, discovering their columns with PRAGMA table_info, so it follows the gateway's DDL.

Shape, for N people:
  Person                N rows (person 1 is the blog's Bob Samson)
  Car                   round(1.5 N) rows
  PersonCar             1 to 3 per person (2 N on average), each pointing at a random car
  PersonCarMaintenance  0 to 3 per PersonCar (3 N on average)
  Maintenance           a fixed catalogue of 24 services

Storage conventions (those of the gateway): Edm.DateTime is INTEGER milliseconds since the Unix
epoch, Edm.Decimal is TEXT such as "89.95". Hidden foreign-key columns are named after the
principal's key (PersonCar.personID, PersonCar.carID, PersonCarMaintenance.personCarID,
PersonCarMaintenance.maintenanceID).

Usage:
  generate_data.py --people 1000 --db data.sqlite --gateway .build/release/dealer-gateway
      [--schema Schema/CarDealer.edmx] [--seed 6]
With --gateway, the tables are created by `dealer-gateway init` into a temporary file that is
renamed into place only once complete, and an up-to-date existing file (same scale, seed,
generator and DDL, recorded in <db>.manifest.json) is reused. Without --gateway, --db must already
hold the empty tables and is filled in place.

With --database postgresql://..., the same rows then go into that (empty) PostgreSQL database as
well: its tables made by `dealer-gateway init --database ... --no-seed`, the rows copied from --db
(Benchmarks/postgres.py, as `Benchmarks/run.sh --database postgresql` loads them).
"""

import argparse
import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import time

import postgres

GENERATOR_VERSION = 1
CHUNK_PEOPLE = 20_000
MS_PER_DAY = 86_400_000
EPOCH_2005 = 1_104_537_600_000  # 2005-01-01T00:00:00Z
EPOCH_1995 = 788_918_400_000    # 1995-01-01T00:00:00Z

FIRST_NAMES = (
    "James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara "
    "Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Nancy Daniel Lisa "
    "Matthew Betty Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew "
    "Donna Joshua Michelle Kenneth Dorothy Kevin Carol Brian Amanda George Melissa Edward "
    "Deborah Ronald Stephanie Timothy Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob "
    "Kathleen Gary Amy Nicholas Shirley Eric Angela Jonathan Helen Stephen Anna Larry Brenda "
    "Justin Pamela Scott Nicole Brandon Emma Benjamin Samantha Samuel Katherine Gregory "
    "Christine Frank Debra Alexander Rachel Raymond Catherine Patrick Carolyn Jack Janet Dennis "
    "Ruth Jerry Maria Tyler Heather Aaron Diane Jose Virginia Adam Julie Henry Joyce Nathan "
    "Victoria Douglas Olivia Zachary Kelly Peter Christina Kyle Lauren Walter Joan Ethan "
    "Evelyn Jeremy Judith Harold Megan Keith Cheryl Christian Andrea Roger Hannah Noah Martha "
    "Gerald Jacqueline Carl Frances Terry Gloria Sean Ann Austin Teresa Arthur Kathryn Lawrence "
    "Sara Jesse Janice Dylan Jean Bryan Alice Joe Madison Jordan Doris Billy Abigail Bruce "
    "Julia Albert Judy Willie Grace Gabriel Denise Logan Amber Alan Marilyn Juan Beverly Wayne "
    "Danielle Roy Theresa Ralph Sophia Randy Marie Eugene Diana Vincent Brittany Russell "
    "Natalie Elijah Isabella Louis Charlotte Bobby Rose Philip Alexis Johnny Kayla Bob"
).split()

LAST_NAMES = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez "
    "Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White "
    "Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres "
    "Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts "
    "Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales "
    "Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos "
    "Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes "
    "Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry "
    "Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons "
    "Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West "
    "Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro "
    "Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry "
    "Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez "
    "Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd "
    "Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols "
    "Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Samson"
).split()

# (make, models, weight): Ford is common enough that the "make eq 'Ford'" scenario finds rows.
MAKES = (
    ("Ford", ("Explorer", "Mustang", "F-150", "Focus", "Escape", "Fusion", "Ranger"), 16),
    ("Toyota", ("Camry", "Corolla", "RAV4", "Prius", "Tacoma", "Highlander"), 16),
    ("Honda", ("Civic", "Accord", "CR-V", "Pilot", "Odyssey"), 13),
    ("Chevrolet", ("Silverado", "Malibu", "Impala", "Equinox", "Tahoe", "Camaro"), 12),
    ("Nissan", ("Altima", "Sentra", "Rogue", "Maxima", "Frontier"), 8),
    ("Dodge", ("Ram", "Charger", "Caravan", "Durango"), 6),
    ("Volkswagen", ("Jetta", "Passat", "Golf", "Tiguan"), 6),
    ("Hyundai", ("Elantra", "Sonata", "Tucson", "Santa Fe"), 6),
    ("Subaru", ("Outback", "Forester", "Impreza", "Legacy"), 5),
    ("BMW", ("325i", "530i", "X3", "X5"), 4),
    ("Mercedes-Benz", ("C300", "E350", "GLK350"), 3),
    ("Jeep", ("Wrangler", "Grand Cherokee", "Liberty"), 3),
    ("Mazda", ("Mazda3", "Mazda6", "CX-5", "MX-5 Miata"), 2),
)

# (description, category, laborHours, standardPrice, intervalMiles)
MAINTENANCE = (
    ("Oil and filter change", "Engine", "0.50", "39.95", 5000),
    ("Synthetic oil change", "Engine", "0.50", "69.95", 7500),
    ("Tire rotation", "Tires", "0.50", "24.95", 6000),
    ("Wheel alignment", "Tires", "1.00", "89.95", 15000),
    ("Replace four tires", "Tires", "1.50", "499.00", 50000),
    ("Front brake pads", "Brakes", "1.50", "189.95", 30000),
    ("Rear brake pads", "Brakes", "1.50", "179.95", 40000),
    ("Brake fluid flush", "Brakes", "1.00", "99.95", 30000),
    ("Replace air filter", "Engine", "0.25", "29.95", 15000),
    ("Replace cabin air filter", "Climate", "0.25", "39.95", 15000),
    ("Replace spark plugs", "Engine", "1.50", "199.95", 60000),
    ("Timing belt", "Engine", "4.00", "649.00", 90000),
    ("Coolant flush", "Cooling", "1.00", "119.95", 30000),
    ("Transmission fluid change", "Transmission", "1.00", "149.95", 30000),
    ("Replace battery", "Electrical", "0.50", "159.95", None),
    ("Replace wiper blades", "Exterior", "0.25", "24.95", None),
    ("A/C recharge", "Climate", "1.00", "129.95", None),
    ("State inspection", "Inspection", "0.75", "35.00", 12000),
    ("Multi-point inspection", "Inspection", "0.50", "0.00", None),
    ("Replace headlight bulb", "Electrical", "0.25", "29.95", None),
    ("Replace serpentine belt", "Engine", "1.00", "139.95", 60000),
    ("Fuel injection cleaning", "Engine", "1.00", "109.95", 30000),
    ("Replace shocks and struts", "Suspension", "3.00", "799.00", 75000),
    ("Diagnostic scan", "Electrical", "1.00", "89.95", None),
)

TECHNICIANS = ("Alvarez", "Brooks", "Chen", "Dubois", "Eriksen", "Fischer", "Gupta", "Haddad",
               "Ivanova", "Jensen", "Kowalski", "Larsen")
NOTES = ("Customer waited", "Loaner provided", "Recommended follow-up in 3 months",
         "Warranty work", "Parts on back order", "Checked tire pressure")

# The fields each table receives, in this order; a table must have every one of these columns.
# Kinds: "datetime" and "decimal" are converted if the gateway stores them otherwise.
FIELDS = {
    "Maintenance": (("maintenanceID", "int"), ("description", "text"), ("category", "text"),
                    ("laborHours", "decimal"), ("standardPrice", "decimal"),
                    ("intervalMiles", "int")),
    "Car": (("carID", "int"), ("make", "text"), ("model", "text"),
            ("manufactureDate", "datetime"), ("createStamp", "datetime")),
    "Person": (("personID", "int"), ("firstName", "text"), ("lastName", "text"),
               ("ssn", "text"), ("createDate", "datetime")),
    "PersonCar": (("personCarID", "int"), ("createStamp", "datetime"), ("personID", "int"),
                  ("carID", "int")),
    "PersonCarMaintenance": (("personCarMaintenanceID", "int"), ("serviceDate", "datetime"),
                             ("mileage", "int"), ("cost", "decimal"), ("technician", "text"),
                             ("notes", "text"), ("createStamp", "datetime"),
                             ("personCarID", "int"), ("maintenanceID", "int")),
}


class GenerationError(Exception):
    pass


def iso_datetime(milliseconds):
    seconds, ms = divmod(milliseconds, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03d" % ms


def affinity(declared_type):
    """SQLite's column affinity rules (https://sqlite.org/datatype3.html, section 3.1)."""
    t = declared_type.upper()
    if "INT" in t:
        return "INTEGER"
    if "CHAR" in t or "CLOB" in t or "TEXT" in t:
        return "TEXT"
    if "BLOB" in t or t == "":
        return "BLOB"
    if "REAL" in t or "FLOA" in t or "DOUB" in t:
        return "REAL"
    return "NUMERIC"


class TableWriter:
    """Inserts one table's rows through the columns the gateway created for it."""

    def __init__(self, connection, table):
        self.connection = connection
        self.table = table
        self.rows_written = 0
        columns = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
        if not columns:
            raise GenerationError(
                f'table "{table}" does not exist; create the tables first with '
                f'`dealer-gateway init --schema Schema/CarDealer.edmx --db <file>`')
        by_name = {c[1].lower(): c for c in columns}  # cid, name, type, notnull, default, pk
        wanted = FIELDS[table]
        names, converters = [], []
        for field, kind in wanted:
            column = by_name.get(field.lower())
            if column is None:
                raise GenerationError(f'table "{table}" has no column "{field}"; '
                                      f'columns are {[c[1] for c in columns]}')
            names.append(column[1])
            converters.append(self._converter(kind, affinity(column[2])))
        known = {field.lower() for field, _ in wanted}
        for cid, name, declared, notnull, default, pk in columns:
            if name.lower() not in known and notnull and default is None and not pk:
                raise GenerationError(f'table "{table}" has a required column "{name}" '
                                      f'that this generator does not know how to fill')
        if any(converters):
            conversions = [c or (lambda v: v) for c in converters]
            self.adapt = lambda rows: [tuple(None if v is None else f(v)
                                             for f, v in zip(conversions, row)) for row in rows]
        else:
            self.adapt = None
        column_list = ", ".join(f'"{n}"' for n in names)
        placeholders = ", ".join("?" for _ in names)
        self.sql = f'INSERT INTO "{table}" ({column_list}) VALUES ({placeholders})'

    @staticmethod
    def _converter(kind, column_affinity):
        if kind == "datetime" and column_affinity == "TEXT":
            return iso_datetime
        if kind == "decimal" and column_affinity in ("REAL", "NUMERIC"):
            return float
        return None

    def require_empty(self):
        if self.connection.execute(f'SELECT 1 FROM "{self.table}" LIMIT 1').fetchone():
            raise GenerationError(f'table "{self.table}" already has rows; '
                                  f'generate into a freshly initialised database')

    def write(self, rows):
        if self.adapt:
            rows = self.adapt(rows)
        self.connection.executemany(self.sql, rows)
        self.rows_written += len(rows)


def weighted_makes():
    table = []
    for make, models, weight in MAKES:
        table.extend([(make, models)] * weight)
    return table


def fill(connection, people, seed, progress):
    rng = random.Random(seed)
    rand = rng.random
    writers = {name: TableWriter(connection, name) for name in FIELDS}
    for writer in writers.values():
        writer.require_empty()

    maintenance_count = len(MAINTENANCE)
    writers["Maintenance"].write([(i + 1,) + row for i, row in enumerate(MAINTENANCE)])

    car_count = max(1, round(people * 1.5))
    makes = weighted_makes()
    make_count = len(makes)
    car_created = EPOCH_2005
    car_span = 15 * 365 * MS_PER_DAY
    for start in range(1, car_count + 1, CHUNK_PEOPLE):
        rows = []
        for car_id in range(start, min(start + CHUNK_PEOPLE, car_count + 1)):
            make, models = makes[int(rand() * make_count)]
            model = models[int(rand() * len(models))]
            created = car_created + int(rand() * car_span)
            built = None if rand() < 0.05 else created - int(rand() * 3650 * MS_PER_DAY)
            rows.append((car_id, make, model, built, created))
        writers["Car"].write(rows)
        progress("Car", writers["Car"].rows_written, car_count)

    first_count, last_count = len(FIRST_NAMES), len(LAST_NAMES)
    person_span = 15 * 365 * MS_PER_DAY
    person_car_id = 0
    pcm_id = 0
    for start in range(1, people + 1, CHUNK_PEOPLE):
        person_rows, person_car_rows, pcm_rows = [], [], []
        for person_id in range(start, min(start + CHUNK_PEOPLE, people + 1)):
            created = EPOCH_2005 + int(rand() * person_span)
            if person_id == 1:
                first, last = "Bob", "Samson"
            else:
                first = FIRST_NAMES[int(rand() * first_count)]
                last = LAST_NAMES[int(rand() * last_count)]
            ssn = None if rand() < 0.1 else "%09d" % int(rand() * 1_000_000_000)
            person_rows.append((person_id, first, last, ssn, created))
            for _ in range(1 + int(rand() * 3)):
                person_car_id += 1
                owned = created + int(rand() * 1000 * MS_PER_DAY)
                car_id = 1 + int(rand() * car_count)
                person_car_rows.append((person_car_id, owned, person_id, car_id))
                service = owned
                mileage = int(rand() * 40_000)
                for _ in range(int(rand() * 4)):
                    pcm_id += 1
                    service += int((30 + rand() * 300) * MS_PER_DAY)
                    mileage += 1000 + int(rand() * 9000)
                    maintenance_id = 1 + int(rand() * maintenance_count)
                    price = float(MAINTENANCE[maintenance_id - 1][3])
                    cost = "%.2f" % (price * (0.85 + rand() * 0.4))
                    technician = None if rand() < 0.2 else TECHNICIANS[int(rand() * 12)]
                    notes = NOTES[int(rand() * 6)] if rand() < 0.15 else None
                    stamp = service + int(rand() * 8 * 3_600_000)
                    pcm_rows.append((pcm_id, service, mileage, cost, technician, notes, stamp,
                                     person_car_id, maintenance_id))
        writers["Person"].write(person_rows)
        writers["PersonCar"].write(person_car_rows)
        writers["PersonCarMaintenance"].write(pcm_rows)
        progress("Person", writers["Person"].rows_written, people)
    return {name: writer.rows_written for name, writer in writers.items()}


def generate_in_place(path, people, seed, quiet=False):
    started = time.monotonic()
    last_report = [started]

    def progress(table, done, total):
        now = time.monotonic()
        if not quiet and (now - last_report[0] > 5 or done == total):
            last_report[0] = now
            print(f"  {table}: {done}/{total} ({now - started:.0f}s)", file=sys.stderr)

    connection = sqlite3.connect(path, isolation_level=None)
    try:
        journal_mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        connection.execute("PRAGMA journal_mode=MEMORY")
        connection.execute("PRAGMA synchronous=OFF")
        connection.execute("PRAGMA cache_size=-262144")  # 256 MB while the indexes fill
        connection.execute("BEGIN")
        try:
            counts = fill(connection, people, seed, progress)
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute(f"PRAGMA journal_mode={journal_mode}")
    finally:
        connection.close()
    return counts, time.monotonic() - started


def schema_ddl(path):
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master "
            "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
    finally:
        connection.close()
    return [list(row) for row in rows]


def run_init(gateway, schema, path):
    for leftover in (path, path + "-wal", path + "-shm", path + "-journal"):
        if os.path.exists(leftover):
            os.remove(leftover)
    command = [gateway, "init", "--schema", schema, "--db", path]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=120)
    if result.returncode != 0 or not os.path.exists(path):
        raise GenerationError(f"`{' '.join(command)}` failed (exit {result.returncode}):\n"
                              f"{result.stdout}{result.stderr}")


def generator_fingerprint():
    with open(os.path.abspath(__file__), "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()[:16]


def generate_cached(db, people, seed, gateway, schema):
    """Reuse db if its manifest matches; else init a temporary file, fill it and rename it."""
    manifest_path = db + ".manifest.json"
    partial = db + ".partial"
    run_init(gateway, schema, partial)
    manifest = {"people": people, "seed": seed, "generatorVersion": GENERATOR_VERSION,
                "generator": generator_fingerprint(), "ddl": schema_ddl(partial)}
    if os.path.exists(db) and os.path.exists(manifest_path):
        try:
            with open(manifest_path) as f:
                previous = json.load(f)
        except (OSError, ValueError):
            previous = None
        if previous and {k: v for k, v in previous.items() if k != "rows"} == manifest:
            os.remove(partial)
            print(f"reusing {db} ({people} people)", file=sys.stderr)
            return previous.get("rows", {}), 0.0
    print(f"generating {db} ({people} people, seed {seed})", file=sys.stderr)
    counts, seconds = generate_in_place(partial, people, seed)
    os.replace(partial, db)
    manifest["rows"] = counts
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    return counts, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, required=True, help="number of Person rows")
    parser.add_argument("--db", required=True, help="SQLite file to fill (or create)")
    parser.add_argument("--seed", type=int, default=6, help="random seed (default 6)")
    parser.add_argument("--gateway", help="dealer-gateway executable, to create the tables")
    parser.add_argument("--database", help="an empty PostgreSQL database (libpq URI) to load the "
                                           "same rows into; needs --gateway")
    parser.add_argument("--schema", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "Schema", "CarDealer.edmx"))
    args = parser.parse_args()
    if args.people < 1:
        parser.error("--people must be at least 1")
    if args.database and not args.gateway:
        parser.error("--database needs --gateway, which creates its tables")
    try:
        if args.gateway:
            counts, seconds = generate_cached(args.db, args.people, args.seed, args.gateway,
                                              args.schema)
        else:
            if not os.path.exists(args.db):
                raise GenerationError(f"{args.db} does not exist; pass --gateway to create it")
            counts, seconds = generate_in_place(args.db, args.people, args.seed)
        summary = ", ".join(f"{table} {count}" for table, count in counts.items())
        print(f"{args.db}: {summary}" + (f" in {seconds:.1f}s" if seconds else ""), file=sys.stderr)
        if args.database:
            loaded = postgres.load_dataset(args.db, args.database, args.gateway, args.schema)
            print(f"{args.database}: " + ", ".join(f"{table} {count}" for table, count in loaded.items()),
                  file=sys.stderr)
    except (GenerationError, postgres.PostgresError, sqlite3.Error, subprocess.SubprocessError,
            OSError) as error:
        print(f"generate_data.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
