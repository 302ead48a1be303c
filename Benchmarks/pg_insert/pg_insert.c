// The write target's yardstick on PostgreSQL, as sqlite_insert.c is on SQLite: how many one-row
// transactions PostgreSQL itself commits per second, with the commit settings the gateway uses.
// Each of --connections threads holds one connection (as each gateway worker does) and runs, for a
// fixed time, BEGIN ISOLATION LEVEL READ COMMITTED / INSERT INTO "Person" ... RETURNING the key
// (a prepared statement, the row a POST Person writes) / COMMIT, with synchronous_commit on, so
// that each COMMIT returns once the row is durable. The gateway can have at most one transaction
// in flight per worker, so the benchmark runs this with the gateway's --threads connections.
//
// Build: cc -O2 -o pg_insert pg_insert.c $(pkg-config --cflags --libs libpq) -lpthread
// Run:   pg_insert --database postgresql://user@127.0.0.1:PORT/db [--seconds 3] [--connections 2]
// Prints one line: {"rows":N,"seconds":S,"rowsPerSecond":R,"connections":C,"synchronousCommit":"on"}
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *database_url;
static double seconds = 3;

struct worker {
    pthread_t thread;
    int index;
    long rows;
    double elapsed;
    char synchronous_commit[16];
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(PGconn *connection, PGresult *result, ExecStatusType expected, const char *what)
{
    if (PQresultStatus(result) != expected) {
        fprintf(stderr, "pg_insert: %s: %s", what, PQerrorMessage(connection));
        exit(1);
    }
}

static void command(PGconn *connection, const char *sql)
{
    PGresult *result = PQexec(connection, sql);
    check(connection, result, PGRES_COMMAND_OK, sql);
    PQclear(result);
}

static void *insert_loop(void *argument)
{
    struct worker *worker = argument;
    PGconn *connection = PQconnectdb(database_url);
    if (PQstatus(connection) != CONNECTION_OK) {
        fprintf(stderr, "pg_insert: cannot connect: %s", PQerrorMessage(connection));
        exit(1);
    }
    // The server's default, stated: a COMMIT returns once its WAL is flushed, as the gateway's do.
    command(connection, "SET synchronous_commit = on");
    PGresult *setting = PQexec(connection, "SHOW synchronous_commit");
    check(connection, setting, PGRES_TUPLES_OK, "SHOW synchronous_commit");
    snprintf(worker->synchronous_commit, sizeof worker->synchronous_commit, "%s", PQgetvalue(setting, 0, 0));
    PQclear(setting);

    PGresult *prepared = PQprepare(connection, "insert_person",
        "INSERT INTO \"Person\" (\"firstName\", \"lastName\", \"ssn\", \"createDate\") VALUES ($1, $2, $3, $4) "
        "RETURNING \"personID\"", 4, NULL);
    check(connection, prepared, PGRES_COMMAND_OK, "prepare insert");
    PQclear(prepared);

    char first[32], created[32];
    const char *values[4] = {first, "Inserter", "123456789", created};
    long rows = 0;
    double start = now_seconds(), elapsed = 0;
    while (elapsed < seconds) {
        command(connection, "BEGIN ISOLATION LEVEL READ COMMITTED");
        snprintf(first, sizeof first, "Raw%d_%ld", worker->index, rows);
        snprintf(created, sizeof created, "%lld", 1257008908440LL + rows);
        PGresult *inserted = PQexecPrepared(connection, "insert_person", 4, values, NULL, NULL, 0);
        check(connection, inserted, PGRES_TUPLES_OK, "insert");
        PQclear(inserted);
        command(connection, "COMMIT");
        rows++;
        if ((rows & 15) == 0) elapsed = now_seconds() - start;
    }
    worker->elapsed = now_seconds() - start;
    worker->rows = rows;
    PQfinish(connection);
    return NULL;
}

int main(int argc, char **argv)
{
    int connections = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--database") == 0) database_url = argv[i + 1];
        else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--connections") == 0) connections = atoi(argv[i + 1]);
        else { fprintf(stderr, "pg_insert: unknown option %s\n", argv[i]); return 2; }
    }
    if (database_url == NULL || seconds <= 0 || connections < 1 || connections > 256) {
        fprintf(stderr, "usage: pg_insert --database URI [--seconds S] [--connections N]\n");
        return 2;
    }
    struct worker *workers = calloc((size_t)connections, sizeof *workers);
    for (int i = 0; i < connections; i++) {
        workers[i].index = i;
        if (pthread_create(&workers[i].thread, NULL, insert_loop, &workers[i]) != 0) {
            fprintf(stderr, "pg_insert: cannot start a thread\n");
            return 1;
        }
    }
    long rows = 0;
    double elapsed = 0;
    for (int i = 0; i < connections; i++) {
        pthread_join(workers[i].thread, NULL);
        rows += workers[i].rows;
        if (workers[i].elapsed > elapsed) elapsed = workers[i].elapsed;
    }
    printf("{\"rows\":%ld,\"seconds\":%.3f,\"rowsPerSecond\":%.1f,\"connections\":%d,\"synchronousCommit\":\"%s\"}\n",
           rows, elapsed, elapsed > 0 ? rows / elapsed : 0.0, connections, workers[0].synchronous_commit);
    free(workers);
    return 0;
}
