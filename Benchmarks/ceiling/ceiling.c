// The HTTP ceiling of this machine: a minimal libmicrohttpd server that answers every GET with the
// same ~400-byte OData-style JSON body, prepared once. It is set up like the gateway (its listener
// dealing connections out to as many worker threads, each polling with epoll), so the benchmark
// can print every gateway figure as a ratio to what libmicrohttpd itself manages on the same
// machine in the same run.
//
// Build: cc -O2 -o ceiling ceiling.c $(pkg-config --cflags --libs libmicrohttpd)
// Run:   ceiling [--body FILE] [--work-ns N] [--port N] [--threads N] [--host 127.0.0.1]
// --body answers with FILE's bytes instead (Benchmarks/profile/cpu_per_request.sh gives it a
// gateway response, to see what libmicrohttpd itself does with a body of that size).
// --work-ns spins for N nanoseconds before each answer: a server that costs that much more per
// request than libmicrohttpd alone (Benchmarks/profile/cost_curve.py).
// Prints "Serving http://127.0.0.1:<port>/" once listening; SIGINT/SIGTERM stop it.
#include "../common/yardstick.h"
#include <time.h>

// Nanoseconds each answer spins first (--work-ns); 0 answers at once.
static long work_ns;

// Busy for `work_ns` of wall time, read from the vDSO clock (no system call): user CPU, like a
// server's own work, rather than a sleep, which would leave the core to others.
static void work(void)
{
    if (work_ns <= 0) return;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < work_ns);
}

// A single Person entry in verbose JSON, about the size of the gateway's Person(n) answer.
static const char BODY[] =
    "{\"d\":{\"__metadata\":{\"uri\":\"http://127.0.0.1/CarDealer.svc/Person(1)\","
    "\"type\":\"edmexampleModel.Person\"},\"personID\":1,\"firstName\":\"Bob\","
    "\"lastName\":\"Samson\",\"ssn\":\"543872934\",\"createDate\":\"\\/Date(1257008908440)\\/\","
    "\"PersonCar\":{\"__deferred\":{\"uri\":\"http://127.0.0.1/CarDealer.svc/Person(1)/PersonCar\"}},"
    "\"padding\":\"........................................................................"
    "................\"}}";

static struct MHD_Response *ok_response;
static struct MHD_Response *not_allowed_response;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **request_state)
{
    (void)cls; (void)url; (void)version; (void)upload_data;
    static int first_call_marker;
    if (*request_state == NULL) {         // headers only: wait for (and drain) any body first
        *request_state = &first_call_marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {         // the ceiling ignores request bodies
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0) {
        work();
        return MHD_queue_response(connection, MHD_HTTP_OK, ok_response);
    }
    return MHD_queue_response(connection, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed_response);
}

// The bytes of `path`, read whole; exits when it cannot.
static char *read_body(const char *program, const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    char *bytes = NULL;
    long size = -1;
    if (file != NULL && fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) >= 0 && fseek(file, 0, SEEK_SET) == 0
        && (bytes = malloc(size > 0 ? (size_t)size : 1)) != NULL && fread(bytes, 1, (size_t)size, file) == (size_t)size) {
        fclose(file);
        *length = (size_t)size;
        return bytes;
    }
    fprintf(stderr, "%s: cannot read %s\n", program, path);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *body = BODY;
    size_t body_length = sizeof BODY - 1;
    // `--body FILE` and `--work-ns N` are the ceiling's own options: taken out, in front, before
    // the shared command line is read.
    for (;;) {
        if (argc >= 3 && strcmp(argv[1], "--body") == 0) {
            body = read_body(argv[0], argv[2], &body_length);
        } else if (argc >= 3 && strcmp(argv[1], "--work-ns") == 0) {
            char *end;
            work_ns = strtol(argv[2], &end, 10);
            if (*argv[2] == '\0' || *end != '\0' || work_ns < 0 || work_ns > 1000000000L) {
                fprintf(stderr, "%s: --work-ns takes 0 to 1000000000 nanoseconds\n", argv[0]);
                return 2;
            }
        } else {
            break;
        }
        argv[2] = argv[0];
        argc -= 2;
        argv += 2;
    }
    ok_response = MHD_create_response_from_buffer(body_length, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(ok_response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json;charset=utf-8");
    MHD_add_response_header(ok_response, "DataServiceVersion", "1.0;");
    not_allowed_response = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);

    int status = yardstick_serve(argc, argv, answer, NULL, NULL);
    MHD_destroy_response(ok_response);
    MHD_destroy_response(not_allowed_response);
    return status;
}
