// What the C yardsticks (ceiling/ceiling.c, floor/floor.c) share: their command line, and a
// libmicrohttpd setup like the gateway's (the gateway's listener dealing connections out to one
// daemon per worker thread, each with epoll and the gateway's 16 KiB connection memory, which
// libmicrohttpd zeroes on every request, so each yardstick pays what the gateway pays), run until
// SIGINT or SIGTERM. The signals are blocked in every thread and awaited by the main one: a
// handler could run in one of libmicrohttpd's threads and leave the main thread waiting.
#ifndef YARDSTICK_H
#define YARDSTICK_H

#include <arpa/inet.h>
#include <microhttpd.h>
#include "../../Sources/CMicroHTTPD/listener.h"
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// `--host ADDRESS --port N --threads N`, and `--db PATH` when `database` is not NULL (required then).
static void yardstick_usage(const char *program, int wants_database)
{
    fprintf(stderr, "usage: %s %s[--host ADDRESS] [--port N] [--threads N]\n", program, wants_database ? "--db PATH " : "");
    exit(2);
}

// Serves `answer` on the address the command line names, prints "Serving http://host:port/" once
// listening, and returns the process's exit status when stopped. `prepare`, when not NULL, runs
// after the command line is read and before the daemon starts; it returns 0 to give up.
static int yardstick_serve(int argc, char **argv, MHD_AccessHandlerCallback answer, const char **database,
                           int (*prepare)(void))
{
    const char *host = "127.0.0.1";
    int port = 0;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) yardstick_usage(argv[0], database != NULL);
        if (strcmp(argv[i], "--port") == 0) port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0) threads = atol(argv[++i]);
        else if (strcmp(argv[i], "--host") == 0) host = argv[++i];
        else if (database != NULL && strcmp(argv[i], "--db") == 0) *database = argv[++i];
        else yardstick_usage(argv[0], database != NULL);
    }
    if (port < 0 || port > 65535 || threads < 1 || (database != NULL && *database == NULL))
        yardstick_usage(argv[0], database != NULL);
    if (prepare != NULL && !prepare()) return 1;

    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        fprintf(stderr, "%s: not an IPv4 address: %s\n", argv[0], host);
        return 2;
    }

    // Blocked before libmicrohttpd starts its threads, which inherit the mask.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    // Connections come from the gateway's own listener (Sources/CMicroHTTPD/listener.h), which
    // deals them out to the workers in turn, as the gateway's are.
    struct cmhd_listener *listener = cmhd_listener_open((const struct sockaddr *)&address, sizeof address);
    if (listener == NULL) {
        fprintf(stderr, "%s: could not listen on %s:%d: %s\n", argv[0], host, port, strerror(errno));
        return 1;
    }
    // One daemon per worker thread, as the gateway has.
    struct MHD_Daemon *daemons[threads];
    for (long i = 0; i < threads; i++) {
        daemons[i] = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC, 0,
            NULL, NULL, answer, NULL,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
            MHD_OPTION_END);
        if (daemons[i] == NULL) {
            fprintf(stderr, "%s: could not start a libmicrohttpd daemon\n", argv[0]);
            return 1;
        }
    }
    if (cmhd_listener_serve(listener, daemons, (unsigned int)threads) != 0) {
        fprintf(stderr, "%s: could not start the thread that accepts connections\n", argv[0]);
        return 1;
    }
    printf("Serving http://%s:%u/\n", host, (unsigned)cmhd_listener_port(listener));
    fflush(stdout);

    int received;
    sigwait(&stop_signals, &received);

    cmhd_listener_close(listener);
    return 0;
}

#endif
