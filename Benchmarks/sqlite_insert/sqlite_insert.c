// The write target's yardstick: how many one-row transactions SQLite itself commits per second on
// this disk, with the journal mode and synchronous setting the gateway uses. It inserts Person rows
// (the same table and indexes a POST Person fills) into a scratch copy of the benchmark database,
// one BEGIN IMMEDIATE / INSERT / COMMIT per row through a reused prepared statement, for a fixed time.
//
// Build: cc -O2 -o sqlite_insert sqlite_insert.c $(pkg-config --cflags --libs sqlite3)
// Run:   sqlite_insert --db scratch.sqlite [--seconds 3] [--synchronous NORMAL] [--journal WAL]
// Prints one line: {"rows":N,"seconds":S,"rowsPerSecond":R,"synchronous":"NORMAL","journal":"wal"}
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(sqlite3 *db, int rc, const char *what)
{
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite_insert: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static void exec(sqlite3 *db, const char *sql)
{
    check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *synchronous = "NORMAL", *journal = "WAL";
    double seconds = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--db") == 0) path = argv[i + 1];
        else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--synchronous") == 0) synchronous = argv[i + 1];
        else if (strcmp(argv[i], "--journal") == 0) journal = argv[i + 1];
        else { fprintf(stderr, "sqlite_insert: unknown option %s\n", argv[i]); return 2; }
    }
    if (path == NULL || seconds <= 0) {
        fprintf(stderr, "usage: sqlite_insert --db FILE [--seconds S] [--synchronous NORMAL] [--journal WAL]\n");
        return 2;
    }

    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite_insert: cannot open %s\n", path);
        return 1;
    }
    char pragma[128];
    snprintf(pragma, sizeof pragma, "PRAGMA journal_mode=%s", journal);
    exec(db, pragma);
    snprintf(pragma, sizeof pragma, "PRAGMA synchronous=%s", synchronous);
    exec(db, pragma);

    sqlite3_stmt *journal_query;
    check(db, sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &journal_query, NULL), "journal_mode");
    check(db, sqlite3_step(journal_query), "journal_mode");
    char actual_journal[32];
    snprintf(actual_journal, sizeof actual_journal, "%s", (const char *)sqlite3_column_text(journal_query, 0));
    sqlite3_finalize(journal_query);

    sqlite3_stmt *insert, *begin, *commit;
    check(db, sqlite3_prepare_v2(db,
        "INSERT INTO \"Person\" (\"firstName\", \"lastName\", \"ssn\", \"createDate\") VALUES (?, ?, ?, ?)",
        -1, &insert, NULL), "prepare insert");
    check(db, sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL), "prepare begin");
    check(db, sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), "prepare commit");

    long rows = 0;
    double start = now_seconds(), elapsed = 0;
    char first[32];
    while (elapsed < seconds) {
        check(db, sqlite3_step(begin), "begin");
        sqlite3_reset(begin);
        snprintf(first, sizeof first, "Raw%ld", rows);
        sqlite3_bind_text(insert, 1, first, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, "Inserter", -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 3, "123456789", -1, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 4, 1257008908440LL + rows);
        check(db, sqlite3_step(insert), "insert");
        sqlite3_reset(insert);
        check(db, sqlite3_step(commit), "commit");
        sqlite3_reset(commit);
        rows++;
        if ((rows & 63) == 0) elapsed = now_seconds() - start;
    }
    elapsed = now_seconds() - start;
    printf("{\"rows\":%ld,\"seconds\":%.3f,\"rowsPerSecond\":%.1f,\"synchronous\":\"%s\",\"journal\":\"%s\"}\n",
           rows, elapsed, rows / elapsed, synchronous, actual_journal);
    sqlite3_finalize(insert);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_close(db);
    return 0;
}
