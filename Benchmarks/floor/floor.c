// The floor for Person(n): what libmicrohttpd and SQLite alone cost for the gateway's most
// frequent request, with no gateway in between. It answers GET .../Person(n) the way the
// gateway does (a primary-key lookup through a prepared statement on a per-thread connection,
// a WAL read lock held process-wide, the same verbose JSON with its ETag, the same five
// response headers) and nothing else. The
// benchmark runs it beside the ceiling: the ceiling is what libmicrohttpd manages with a fixed
// body, this is what any server must add to reach the data; the gateway's own cost is the rest.
//
// Build: cc -O2 -o floor floor.c $(pkg-config --cflags --libs libmicrohttpd sqlite3)
// Run:   floor --db PATH [--port N] [--threads N] [--host 127.0.0.1]
// Prints "Serving http://127.0.0.1:<port>/" once listening; SIGINT/SIGTERM stop it.
#include <inttypes.h>
#include <sqlite3.h>

#include "../common/yardstick.h"

static const char *database_path;

// One connection and one prepared lookup per server thread, as the gateway keeps them.
static __thread sqlite3 *connection_db;
static __thread sqlite3_stmt *lookup;

// A WAL read lock held by one more connection for the server's lifetime, as the gateway's
// ReadLockAnchor holds it while nothing writes: SQLite then takes each lookup's read lock inside
// the process instead of with two fcntl calls. The floor never writes, so it never lets go.
static sqlite3 *anchor_db;

static int hold_read_lock(void)
{
    return sqlite3_open_v2(database_path, &anchor_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK
        && sqlite3_exec(anchor_db, "BEGIN; SELECT 1 FROM sqlite_schema LIMIT 1;", NULL, NULL, NULL) == SQLITE_OK;
}

static int open_connection(void)
{
    if (lookup != NULL) return 1;
    if (sqlite3_open_v2(database_path, &connection_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return 0;
    sqlite3_exec(connection_db, "PRAGMA cache_size=-16384", NULL, NULL, NULL);
    const char *sql = "SELECT t0.\"personID\", t0.\"firstName\", t0.\"lastName\", t0.\"ssn\", t0.\"createDate\" "
                      "FROM \"Person\" AS t0 WHERE t0.\"personID\" = ?";
    return sqlite3_prepare_v3(connection_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &lookup, NULL) == SQLITE_OK;
}

// JSON string content of `text`: quote, backslash and control characters escaped.
static size_t escape(char *out, const unsigned char *text, int length)
{
    size_t n = 0;
    for (int i = 0; i < length; i++) {
        unsigned char c = text[i];
        if (c == '"' || c == '\\') { out[n++] = '\\'; out[n++] = (char)c; }
        else if (c < 0x20) n += (size_t)sprintf(out + n, "\\u%04x", c);
        else out[n++] = (char)c;
    }
    return n;
}

// The gateway's ETag digest (EntityTag.swift, ColumnDigest): the row's columns as words, each
// with a type word first (text with its length), 8 bytes a round (short tails as overlapping
// loads), then MurmurHash3's finalizer.
static uint64_t mix(uint64_t state, uint64_t word)
{
    state = (state ^ word) * 0x9e3779b97f4a7c15ULL;
    return state ^ (state >> 32);
}

// Little-endian loads, as the gateway reads words.
static uint64_t load64(const unsigned char *p) { uint64_t w; memcpy(&w, p, 8); return w; }
static uint32_t load32(const unsigned char *p) { uint32_t w; memcpy(&w, p, 4); return w; }

static uint64_t digest(sqlite3_stmt *row)
{
    uint64_t state = 0xcbf29ce484222325ULL;
    for (int column = 0; column < 5; column++) {
        int type = sqlite3_column_type(row, column);
        if (type == SQLITE_NULL) {
            state = mix(state, 0);
            continue;
        }
        if (type == SQLITE_INTEGER) {
            state = mix(mix(state, 1), (uint64_t)sqlite3_column_int64(row, column));
            continue;
        }
        const unsigned char *bytes = sqlite3_column_text(row, column);
        int length = sqlite3_column_bytes(row, column);
        state = mix(state, (uint64_t)length << 8 | 3);
        if (length >= 8) {
            int offset = 0;
            for (; offset + 8 <= length; offset += 8) state = mix(state, load64(bytes + offset));
            if (offset < length) state = mix(state, load64(bytes + length - 8));
        } else if (length >= 4) {
            state = mix(state, (uint64_t)load32(bytes) << 32 | load32(bytes + length - 4));
        } else if (length > 0) {
            state = mix(state, (uint64_t)bytes[0] << 16 | (uint64_t)bytes[length >> 1] << 8 | bytes[length - 1]);
        }
    }
    state ^= state >> 33; state *= 0xff51afd7ed558ccdULL;
    state ^= state >> 33; state *= 0xc4ceb9fe1a85ec53ULL;
    return state ^ (state >> 33);
}

static enum MHD_Result respond(struct MHD_Connection *connection, unsigned status, const char *body, size_t length,
                               const char *etag)
{
    struct MHD_Response *response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json;charset=utf-8");
    MHD_add_response_header(response, "DataServiceVersion", "1.0;");
    MHD_add_response_header(response, "Cache-Control", "no-cache");
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    if (etag != NULL) MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **request_state)
{
    (void)cls; (void)version; (void)upload_data;
    static int first_call_marker;
    if (*request_state == NULL) { *request_state = &first_call_marker; return MHD_YES; }
    if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }

    static const char not_found[] = "{\"error\":{\"code\":\"\",\"message\":{\"lang\":\"en-US\",\"value\":\"Not found\"}}}";
    const char *key = strstr(url, "/Person(");
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 || key == NULL || !open_connection())
        return respond(connection, MHD_HTTP_NOT_FOUND, not_found, sizeof not_found - 1, NULL);
    long id = strtol(key + 8, NULL, 10);
    const char *host = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (host == NULL) host = "localhost";

    sqlite3_bind_int64(lookup, 1, id);
    if (sqlite3_step(lookup) != SQLITE_ROW) {
        sqlite3_reset(lookup);
        return respond(connection, MHD_HTTP_NOT_FOUND, not_found, sizeof not_found - 1, NULL);
    }
    char body[4096], etag[32];
    snprintf(etag, sizeof etag, "W/\"%016" PRIx64 "\"", digest(lookup));
    size_t n = (size_t)snprintf(body, sizeof body,
        "{\"d\":{\"__metadata\":{\"uri\":\"http://%s/CarDealer.svc/Person(%ld)\",\"type\":\"edmexampleModel.Person\","
        "\"etag\":\"W/\\\"%.16s\\\"\"},\"personID\":%lld,\"firstName\":\"", host, id, etag + 3,
        (long long)sqlite3_column_int64(lookup, 0));
    n += escape(body + n, sqlite3_column_text(lookup, 1), sqlite3_column_bytes(lookup, 1) > 128 ? 128 : sqlite3_column_bytes(lookup, 1));
    n += (size_t)sprintf(body + n, "\",\"lastName\":\"");
    n += escape(body + n, sqlite3_column_text(lookup, 2), sqlite3_column_bytes(lookup, 2) > 128 ? 128 : sqlite3_column_bytes(lookup, 2));
    n += (size_t)sprintf(body + n, "\",\"ssn\":\"");
    n += escape(body + n, sqlite3_column_text(lookup, 3), sqlite3_column_bytes(lookup, 3) > 128 ? 128 : sqlite3_column_bytes(lookup, 3));
    n += (size_t)sprintf(body + n, "\",\"createDate\":\"\\/Date(%lld)\\/\",\"PersonCar\":{\"__deferred\":{\"uri\":"
                         "\"http://%s/CarDealer.svc/Person(%ld)/PersonCar\"}}}}",
                         (long long)sqlite3_column_int64(lookup, 4), host, id);
    sqlite3_reset(lookup);
    return respond(connection, MHD_HTTP_OK, body, n, etag);
}

// Called by yardstick_serve once the command line is read, before the daemon starts.
static int prepare(void)
{
    if (hold_read_lock()) return 1;
    fprintf(stderr, "floor: cannot open %s\n", database_path);
    return 0;
}

int main(int argc, char **argv)
{
    int status = yardstick_serve(argc, argv, answer, &database_path, prepare);
    sqlite3_close(anchor_db);
    return status;
}
