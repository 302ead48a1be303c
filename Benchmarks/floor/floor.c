// The floor for three of the gateway's reads: what libmicrohttpd and SQLite alone cost for
// GET .../Person(n), GET .../Person?$top=N and the blog's GET
// .../Person(n)?$expand=PersonCar,PersonCar/Car, with no gateway in between. It answers them
// the way the gateway does (prepared statements on a per-thread connection, each request's reads
// in one read transaction, the same SQL, the same verbose JSON with its ETags, the same response
// headers) and nothing else: any other URI is a 404. The benchmark runs it beside the ceiling:
// the ceiling is what libmicrohttpd manages with a fixed body, this is what any server must add
// to reach the data; the gateway's own cost is the rest.
//
// Build: cc -O2 -o floor floor.c $(pkg-config --cflags --libs libmicrohttpd sqlite3)
// Run:   floor --db PATH [--port N] [--threads N] [--host 127.0.0.1]
// Prints "Serving http://127.0.0.1:<port>/" once listening; SIGINT/SIGTERM stop it.
#include <stdint.h>
#include <sqlite3.h>

#include "../common/yardstick.h"

static const char *database_path;

// One connection and its prepared statements per server thread, as the gateway keeps them.
static __thread sqlite3 *connection_db;
static __thread sqlite3_stmt *lookup;
static __thread sqlite3_stmt *first_page;
static __thread sqlite3_stmt *cars_of_person;

// Each request's reads run in one read transaction, as the gateway's ReadScope runs them.
static __thread sqlite3_stmt *begin_read;
static __thread sqlite3_stmt *end_read;

static int open_connection(void)
{
    if (lookup != NULL) return 1;
    if (sqlite3_open_v2(database_path, &connection_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return 0;
    sqlite3_exec(connection_db, "PRAGMA cache_size=-16384", NULL, NULL, NULL);
    // The gateway's SQL for the two requests: the key lookup, and a page in key order.
    const char *columns = "SELECT t0.\"personID\", t0.\"firstName\", t0.\"lastName\", t0.\"ssn\", t0.\"createDate\" "
                          "FROM \"Person\" AS t0 ";
    char sql[512];
    snprintf(sql, sizeof sql, "%sWHERE t0.\"personID\" = ?", columns);
    if (sqlite3_prepare_v3(connection_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &lookup, NULL) != SQLITE_OK) return 0;
    snprintf(sql, sizeof sql, "%sORDER BY t0.\"personID\" ASC LIMIT ?", columns);
    if (sqlite3_prepare_v3(connection_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &first_page, NULL) != SQLITE_OK) return 0;
    // The gateway's one statement for the $expand's second level: a person's PersonCar rows,
    // each with its Car joined.
    const char *cars = "SELECT t0.\"personCarID\", t0.\"createStamp\", t0.\"personID\", t0.\"carID\", "
                       "j1.\"carID\", j1.\"make\", j1.\"model\", j1.\"manufactureDate\", j1.\"createStamp\" "
                       "FROM \"PersonCar\" AS t0 LEFT JOIN \"Car\" AS j1 ON t0.\"carID\" = j1.\"carID\" "
                       "WHERE t0.\"personID\" = ? ORDER BY t0.\"personCarID\"";
    if (sqlite3_prepare_v3(connection_db, cars, -1, SQLITE_PREPARE_PERSISTENT, &cars_of_person, NULL) != SQLITE_OK) return 0;
    return sqlite3_prepare_v3(connection_db, "BEGIN DEFERRED", -1, SQLITE_PREPARE_PERSISTENT, &begin_read, NULL) == SQLITE_OK
        && sqlite3_prepare_v3(connection_db, "COMMIT", -1, SQLITE_PREPARE_PERSISTENT, &end_read, NULL) == SQLITE_OK;
}

// The body is written by appending bytes, without printf: with sprintf, a page of 20 people made
// the floor slower than the gateway (0.40 of the ceiling against 0.49 in one run). A floor should
// cost no more than the work itself.
#define PUT_LITERAL(p, text) (memcpy((p), (text), sizeof(text) - 1), (p) += sizeof(text) - 1)

static const char HEX_DIGITS[] = "0123456789abcdef";

static char *put_bytes(char *p, const void *bytes, size_t length)
{
    memcpy(p, bytes, length);
    return p + length;
}

// Decimal digits two at a time, from a table of the hundred pairs, as the gateway writes them.
static char *put_integer(char *p, long long value)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char digits[20];
    char *end = digits + sizeof digits, *start = end;
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    while (magnitude >= 100) {
        start -= 2;
        memcpy(start, pairs + 2 * (magnitude % 100), 2);
        magnitude /= 100;
    }
    if (magnitude >= 10) {
        start -= 2;
        memcpy(start, pairs + 2 * magnitude, 2);
    } else {
        *--start = (char)('0' + magnitude);
    }
    if (value < 0) *p++ = '-';
    return put_bytes(p, start, (size_t)(end - start));
}

// JSON string content of `text`: quote, backslash and control characters escaped, with the
// gateway's escapes (JSONWriter.swift).
static char *put_escaped(char *p, const unsigned char *text, int length)
{
    for (int i = 0; i < length; i++) {
        unsigned char c = text[i];
        if (c >= 0x20 && c != '"' && c != '\\') { *p++ = (char)c; continue; }
        *p++ = '\\';
        switch (c) {
        case '"': case '\\': *p++ = (char)c; break;
        case '\n': *p++ = 'n'; break;
        case '\r': *p++ = 'r'; break;
        case '\t': *p++ = 't'; break;
        case '\b': *p++ = 'b'; break;
        case '\f': *p++ = 'f'; break;
        default:
            PUT_LITERAL(p, "u00");
            *p++ = HEX_DIGITS[c >> 4];
            *p++ = HEX_DIGITS[c & 15];
        }
    }
    return p;
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

// An entity's columns (at most five: a Person's or a Car's; a PersonCar has four), each asked of
// SQLite once, as the gateway reads them: every sqlite3_column_* call checks the statement and
// its column again, and asking once took a page of 20 people from 123,515 to 104,043
// instructions (callgrind). Unprotected values, like the gateway's: no mutex guards the
// connection either.
#define MAX_COLUMNS 5
typedef struct { sqlite3_value *values[MAX_COLUMNS]; int count; } row_values;

// The `count` columns from `first` on of the statement's current row.
static row_values read_row(sqlite3_stmt *row, int first, int count)
{
    row_values read = { .count = count };
    for (int column = 0; column < count; column++) read.values[column] = sqlite3_column_value(row, first + column);
    return read;
}

static uint64_t digest(const row_values *row)
{
    uint64_t state = 0xcbf29ce484222325ULL;
    for (int column = 0; column < row->count; column++) {
        sqlite3_value *value = row->values[column];
        int type = sqlite3_value_type(value);
        if (type == SQLITE_NULL) {
            state = mix(state, 0);
            continue;
        }
        if (type == SQLITE_INTEGER) {
            state = mix(mix(state, 1), (uint64_t)sqlite3_value_int64(value));
            continue;
        }
        const unsigned char *bytes = sqlite3_value_text(value);
        int length = sqlite3_value_bytes(value);
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

// Text columns are cut at this many bytes (the schema allows 50 characters, 200 bytes of UTF-8),
// and a longer Host header is refused, so that an entity always fits in ENTITY_ROOM bytes.
#define TEXT_LIMIT 200
#define HOST_LIMIT 255
#define ENTITY_ROOM (3 * 6 * TEXT_LIMIT + 2 * HOST_LIMIT + 512)
// The same for a PersonCar with its Car: two text columns, five URIs.
#define PERSON_CAR_ROOM (2 * 6 * TEXT_LIMIT + 5 * HOST_LIMIT + 1024)
// The largest $top the floor answers: the gateway's server page size, beyond which the gateway
// cuts the page and adds a next link, which the floor does not write.
#define TOP_LIMIT 200
// Room for a page before it grows: a page of 20 people is about 7 KB.
#define PAGE_ROOM (16 * 1024)
// Room for a person with its PersonCar rows and their cars before it grows: a person at its
// largest (ENTITY_ROOM); with three cars the blog's $expand is about 2.6 KB.
#define EXPANDED_ROOM (8 * 1024)

// A text column's value as a JSON string, or null.
static char *put_text(char *p, sqlite3_value *value)
{
    if (sqlite3_value_type(value) == SQLITE_NULL) {
        PUT_LITERAL(p, "null");
        return p;
    }
    const unsigned char *text = sqlite3_value_text(value);
    int length = sqlite3_value_bytes(value);
    *p++ = '"';
    p = put_escaped(p, text, length > TEXT_LIMIT ? TEXT_LIMIT : length);
    *p++ = '"';
    return p;
}

// `http://HOST/CarDealer.svc/SET(ID)`.
#define PUT_ENTITY_URI(p, host, host_length, set, id) \
    (PUT_LITERAL(p, "http://"), (p) = put_bytes((p), (host), (host_length)), \
     PUT_LITERAL(p, "/CarDealer.svc/" set "("), (p) = put_integer((p), (id)), *(p)++ = ')')

// `{"__metadata":{"uri":"URI","type":"edmexampleModel.TYPE","etag":"W/\"TAG\""}` with the
// row's digest as TAG; the ETag, W/"<16 hex digits>", is also left in `etag`.
#define PUT_METADATA(p, host, host_length, set, id, row, etag) \
    (PUT_LITERAL(p, "{\"__metadata\":{\"uri\":\""), PUT_ENTITY_URI(p, host, host_length, set, id), \
     PUT_LITERAL(p, "\",\"type\":\"edmexampleModel." set "\",\"etag\":\"W/\\\""), \
     (p) = put_tag((p), digest(row), (etag)), PUT_LITERAL(p, "\\\"\"}"))

// `,"NAME":{"__deferred":{"uri":"URI/NAME"}}`.
#define PUT_DEFERRED(p, host, host_length, set, id, name) \
    (PUT_LITERAL(p, ",\"" name "\":{\"__deferred\":{\"uri\":\""), PUT_ENTITY_URI(p, host, host_length, set, id), \
     PUT_LITERAL(p, "/" name "\"}}"))

static char *put_tag(char *p, uint64_t tag, char etag[32])
{
    char *e = etag;
    PUT_LITERAL(e, "W/\"");
    for (int shift = 60; shift >= 0; shift -= 4) *e++ = HEX_DIGITS[(tag >> shift) & 15];
    *e++ = '"';
    *e = '\0';
    return put_bytes(p, etag + 3, 16);
}

// A DateTime column: "\/Date(<milliseconds>)\/", or null.
static char *put_date(char *p, sqlite3_value *value)
{
    if (sqlite3_value_type(value) == SQLITE_NULL) {
        PUT_LITERAL(p, "null");
        return p;
    }
    PUT_LITERAL(p, "\"\\/Date(");
    p = put_integer(p, (long long)sqlite3_value_int64(value));
    PUT_LITERAL(p, ")\\/\"");
    return p;
}

// A Car from the columns at `first` of the statement's current row, or null when the join
// found none.
static char *put_car(char *p, sqlite3_stmt *statement, int first, const char *host, size_t host_length)
{
    row_values row = read_row(statement, first, 5);
    if (sqlite3_value_type(row.values[0]) == SQLITE_NULL) {
        PUT_LITERAL(p, "null");
        return p;
    }
    char etag[32];
    long long id = (long long)sqlite3_value_int64(row.values[0]);
    PUT_METADATA(p, host, host_length, "Car", id, &row, etag);
    PUT_LITERAL(p, ",\"carID\":");
    p = put_integer(p, id);
    PUT_LITERAL(p, ",\"make\":");
    p = put_text(p, row.values[1]);
    PUT_LITERAL(p, ",\"model\":");
    p = put_text(p, row.values[2]);
    PUT_LITERAL(p, ",\"manufactureDate\":");
    p = put_date(p, row.values[3]);
    PUT_LITERAL(p, ",\"createStamp\":");
    p = put_date(p, row.values[4]);
    PUT_DEFERRED(p, host, host_length, "Car", id, "PersonCar");
    *p++ = '}';
    return p;
}

// A PersonCar, its Car expanded, from the current row of `cars_of_person`.
static char *put_person_car(char *p, sqlite3_stmt *statement, const char *host, size_t host_length)
{
    row_values row = read_row(statement, 0, 4);
    char etag[32];
    long long id = (long long)sqlite3_value_int64(row.values[0]);
    PUT_METADATA(p, host, host_length, "PersonCar", id, &row, etag);
    PUT_LITERAL(p, ",\"personCarID\":");
    p = put_integer(p, id);
    PUT_LITERAL(p, ",\"createStamp\":");
    p = put_date(p, row.values[1]);
    PUT_LITERAL(p, ",\"Car\":");
    p = put_car(p, statement, 4, host, host_length);
    PUT_DEFERRED(p, host, host_length, "PersonCar", id, "Person");
    PUT_DEFERRED(p, host, host_length, "PersonCar", id, "PersonCarMaintenance");
    *p++ = '}';
    return p;
}

// The current row of `row` as the gateway writes a Person entity, without its closing brace
// and its navigation property; its ETag is left in `etag`.
static char *put_person_properties(char *p, sqlite3_stmt *statement, const char *host, size_t host_length,
                                   long long *id, char etag[32])
{
    row_values row = read_row(statement, 0, 5);
    *id = (long long)sqlite3_value_int64(row.values[0]);
    PUT_METADATA(p, host, host_length, "Person", *id, &row, etag);
    PUT_LITERAL(p, ",\"personID\":");
    p = put_integer(p, *id);
    PUT_LITERAL(p, ",\"firstName\":");
    p = put_text(p, row.values[1]);
    PUT_LITERAL(p, ",\"lastName\":");
    p = put_text(p, row.values[2]);
    PUT_LITERAL(p, ",\"ssn\":");
    p = put_text(p, row.values[3]);
    PUT_LITERAL(p, ",\"createDate\":");
    return put_date(p, row.values[4]);
}

// The current row of `row` as the gateway writes a Person entity; its ETag, W/"<16 hex digits>",
// is left in `etag`.
static char *put_entity(char *p, sqlite3_stmt *statement, const char *host, size_t host_length, char etag[32])
{
    long long id;
    p = put_person_properties(p, statement, host, host_length, &id, etag);
    PUT_DEFERRED(p, host, host_length, "Person", id, "PersonCar");
    *p++ = '}';
    return p;
}

// Room for `needed` more bytes at `*p` in `*body` of `*room` bytes, which grows (by doubling)
// when it has less; 0 when it cannot.
static int make_room(char **body, char **p, size_t *room, size_t needed)
{
    size_t used = (size_t)(*p - *body);
    if (*room - used >= needed) return 1;
    while (*room - used < needed) *room *= 2;
    char *larger = realloc(*body, *room);
    if (larger == NULL) return 0;
    *body = larger;
    *p = larger + used;
    return 1;
}

// Queues `response` with the gateway's header fields, and lets it go.
static enum MHD_Result send_response(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response,
                                     const char *etag)
{
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json;charset=utf-8");
    MHD_add_response_header(response, "DataServiceVersion", "1.0;");
    MHD_add_response_header(response, "Cache-Control", "no-cache");
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(response, "Vary", "Accept");
    if (etag != NULL) MHD_add_response_header(response, MHD_HTTP_HEADER_ETAG, etag);
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

// Sends `length` bytes of `body`, which was malloc'ed: libmicrohttpd frees it once sent, so it
// is not copied.
static enum MHD_Result respond_owned(struct MHD_Connection *connection, unsigned status, char *body, size_t length,
                                     const char *etag)
{
    struct MHD_Response *response = MHD_create_response_from_buffer(length, body, MHD_RESPMEM_MUST_FREE);
    if (response == NULL) free(body);
    return send_response(connection, status, response, etag);
}

static enum MHD_Result respond(struct MHD_Connection *connection, unsigned status, const char *body, size_t length,
                               const char *etag)
{
    return send_response(connection, status,
                         MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY), etag);
}

// The person `lookup` sits on, with its PersonCar rows and their cars, as the gateway answers
// the blog's $expand: the person's statement still on its row while the second one runs, in the
// snapshot both share.
static enum MHD_Result respond_expanded(struct MHD_Connection *connection, const char *host, size_t host_length)
{
    size_t room = EXPANDED_ROOM;
    char *body = malloc(room);
    if (body == NULL) {
        sqlite3_reset(lookup);
        return MHD_NO;
    }
    char *p = body;
    char etag[32];
    long long id;
    PUT_LITERAL(p, "{\"d\":");
    p = put_person_properties(p, lookup, host, host_length, &id, etag);
    PUT_LITERAL(p, ",\"PersonCar\":[");
    sqlite3_bind_int64(cars_of_person, 1, id);
    for (int count = 0; sqlite3_step(cars_of_person) == SQLITE_ROW; count++) {
        if (!make_room(&body, &p, &room, PERSON_CAR_ROOM + 8)) {
            free(body);
            sqlite3_reset(cars_of_person);
            sqlite3_reset(lookup);
            return MHD_NO;
        }
        if (count > 0) *p++ = ',';
        p = put_person_car(p, cars_of_person, host, host_length);
    }
    sqlite3_reset(cars_of_person);
    sqlite3_reset(lookup);
    PUT_LITERAL(p, "]}}");
    // No ETag header: the person's tag cannot vouch for the expanded entities (the gateway's
    // RepresentationTag); each entity's is in the body.
    return respond_owned(connection, MHD_HTTP_OK, body, (size_t)(p - body), NULL);
}

static const char not_found[] = "{\"error\":{\"code\":\"\",\"message\":{\"lang\":\"en-US\",\"value\":\"Not found\"}}}";

static enum MHD_Result read_and_respond(struct MHD_Connection *connection, const char *host, size_t host_length, const char *key);

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **request_state)
{
    (void)cls; (void)version; (void)upload_data;
    static int first_call_marker;
    if (*request_state == NULL) { *request_state = &first_call_marker; return MHD_YES; }
    if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }

    static const char set_suffix[] = "/Person";
    const char *host = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (host == NULL) host = "localhost";
    size_t host_length = strlen(host);
    const char *key = strstr(url, "/Person(");
    size_t url_length = strlen(url);
    int is_set = url_length >= sizeof set_suffix - 1 && strcmp(url + url_length - (sizeof set_suffix - 1), set_suffix) == 0;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 || (key == NULL && !is_set) || host_length > HOST_LIMIT || !open_connection())
        return respond(connection, MHD_HTTP_NOT_FOUND, not_found, sizeof not_found - 1, NULL);
    sqlite3_step(begin_read);
    sqlite3_reset(begin_read);
    enum MHD_Result result = read_and_respond(connection, host, host_length, key);
    sqlite3_step(end_read);
    sqlite3_reset(end_read);
    return result;
}

// The request's reads and its answer, inside the request's read transaction.
static enum MHD_Result read_and_respond(struct MHD_Connection *connection, const char *host, size_t host_length, const char *key)
{
    char etag[32];
    if (key == NULL) {
        // Person?$top=N: the first N people in key order, as a verbose JSON array.
        const char *top_text = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "$top");
        long top = top_text != NULL ? strtol(top_text, NULL, 10) : 0;
        if (top < 1 || top > TOP_LIMIT)
            return respond(connection, MHD_HTTP_NOT_FOUND, not_found, sizeof not_found - 1, NULL);
        size_t room = PAGE_ROOM;
        char *body = malloc(room);
        if (body == NULL) return MHD_NO;
        char *p = body;
        PUT_LITERAL(p, "{\"d\":[");
        sqlite3_bind_int64(first_page, 1, top);
        for (int count = 0; sqlite3_step(first_page) == SQLITE_ROW; count++) {
            if (!make_room(&body, &p, &room, ENTITY_ROOM + 4)) {
                free(body);
                sqlite3_reset(first_page);
                return MHD_NO;
            }
            if (count > 0) *p++ = ',';
            p = put_entity(p, first_page, host, host_length, etag);
        }
        sqlite3_reset(first_page);
        PUT_LITERAL(p, "]}");
        return respond_owned(connection, MHD_HTTP_OK, body, (size_t)(p - body), NULL);
    }

    // Person(n), or the blog's Person(n)?$expand=PersonCar,PersonCar/Car.
    const char *expand = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "$expand");
    if (expand != NULL && strcmp(expand, "PersonCar,PersonCar/Car") != 0)
        return respond(connection, MHD_HTTP_NOT_FOUND, not_found, sizeof not_found - 1, NULL);
    sqlite3_bind_int64(lookup, 1, strtol(key + 8, NULL, 10));
    if (sqlite3_step(lookup) != SQLITE_ROW) {
        sqlite3_reset(lookup);
        return respond(connection, MHD_HTTP_NOT_FOUND, not_found, sizeof not_found - 1, NULL);
    }
    if (expand != NULL) return respond_expanded(connection, host, host_length);
    char *body = malloc(ENTITY_ROOM + 16);
    if (body == NULL) {
        sqlite3_reset(lookup);
        return MHD_NO;
    }
    char *p = body;
    PUT_LITERAL(p, "{\"d\":");
    p = put_entity(p, lookup, host, host_length, etag);
    *p++ = '}';
    sqlite3_reset(lookup);
    return respond_owned(connection, MHD_HTTP_OK, body, (size_t)(p - body), etag);
}

// Called by yardstick_serve once the command line is read, before the daemon starts.
static int prepare(void)
{
    sqlite3 *check = NULL;
    int opened = sqlite3_open_v2(database_path, &check, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK;
    sqlite3_close(check);
    if (opened) return 1;
    fprintf(stderr, "floor: cannot open %s\n", database_path);
    return 0;
}

int main(int argc, char **argv)
{
    return yardstick_serve(argc, argv, answer, &database_path, prepare);
}
