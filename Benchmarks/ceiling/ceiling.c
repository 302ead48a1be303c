// The HTTP ceiling of this machine: a minimal libmicrohttpd server that answers every GET with the
// same ~400-byte OData-style JSON body, prepared once. It is configured like the gateway (internal
// polling thread, epoll, a thread pool of the same size), so the benchmark can print every gateway
// figure as a ratio to what libmicrohttpd itself manages on the same machine in the same run.
//
// Build: cc -O2 -o ceiling ceiling.c $(pkg-config --cflags --libs libmicrohttpd)
// Run:   ceiling [--port N] [--threads N] [--host 127.0.0.1]
// Prints "Serving http://127.0.0.1:<port>/" once listening; SIGINT/SIGTERM stop it.
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int signo) { (void)signo; stop_requested = 1; }

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
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return MHD_queue_response(connection, MHD_HTTP_OK, ok_response);
    return MHD_queue_response(connection, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed_response);
}

static void usage(const char *program)
{
    fprintf(stderr, "usage: %s [--host ADDRESS] [--port N] [--threads N]\n", program);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage(argv[0]);
        if (strcmp(argv[i], "--port") == 0) port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0) threads = atol(argv[++i]);
        else if (strcmp(argv[i], "--host") == 0) host = argv[++i];
        else usage(argv[0]);
    }
    if (port < 0 || port > 65535 || threads < 1) usage(argv[0]);

    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        fprintf(stderr, "ceiling: not an IPv4 address: %s\n", host);
        return 2;
    }

    ok_response = MHD_create_response_from_buffer(sizeof BODY - 1, (void *)BODY, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(ok_response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json;charset=utf-8");
    MHD_add_response_header(ok_response, "DataServiceVersion", "1.0;");
    not_allowed_response = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);

    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0,
        NULL, NULL, answer, NULL,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&address,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
        /* The gateway's connection memory (HTTPServer.Configuration.connectionMemory): libmicrohttpd
           zeroes it on every request, so the ceiling pays what the gateway pays. */
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "ceiling: could not listen on %s:%d\n", host, port);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    printf("Serving http://%s:%u/\n", host, info == NULL ? (unsigned)port : (unsigned)info->port);
    fflush(stdout);

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    while (!stop_requested) pause();

    MHD_stop_daemon(daemon);
    MHD_destroy_response(ok_response);
    MHD_destroy_response(not_allowed_response);
    return 0;
}
