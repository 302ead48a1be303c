#ifndef CMHD_LISTENER_H
#define CMHD_LISTENER_H

// A listening socket and one acceptor thread that deals its connections out in turn to several
// libmicrohttpd daemons, each with one worker thread and no listening socket of its own
// (MHD_USE_NO_LISTEN_SOCKET).
//
// Why: when the workers of a thread pool accept for themselves, the one that wakes first takes up
// to eleven connections in a row, and a burst of new connections (a client opening its pool) can
// all land on one worker and stay there for their keep-alive life. On a 2-core machine that halved
// the rate of whole benchmark runs, with one worker idle (per-thread CPU showed it). Even a pool
// fed with MHD_add_connection picks the worker by socket number, which other open files skew.
//
// Shared by the gateway (through shim.h) and the benchmark's C yardsticks, which must spread
// their connections the same way.

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

// glibc declares accept4 only for _GNU_SOURCE, which would have to come before the first system
// header of every file that includes this one (Swift's importer does not define it).
#ifndef __USE_GNU
extern int accept4(int socket, struct sockaddr *address, socklen_t *length, int flags);
#endif

struct cmhd_listener {
    int socket;
    struct MHD_Daemon **daemons;
    unsigned int daemon_count;
    // The daemon that gets the next connection; only the acceptor thread uses it.
    unsigned int next;
    pthread_t acceptor;
    int accepting;
    atomic_int stopping;
};

// Binds and listens on `address`; NULL with errno set when it cannot (the address is in use, say).
static inline struct cmhd_listener *cmhd_listener_open(const struct sockaddr *address, socklen_t length)
{
    int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return NULL;
    int on = 1;
    // SO_REUSEADDR lets a restarted server bind while its old connections linger in TIME_WAIT.
    // Not SO_REUSEPORT: a second server on the same port must fail, not share its connections.
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0
        || (address->sa_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) != 0)
        || bind(fd, address, length) != 0
        || listen(fd, SOMAXCONN) != 0) {
        int error = errno;
        close(fd);
        errno = error;
        return NULL;
    }
    struct cmhd_listener *listener = calloc(1, sizeof *listener);
    if (listener == NULL) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    listener->socket = fd;
    atomic_init(&listener->stopping, 0);
    return listener;
}

// The port the listener is bound to (the one picked when it was asked for port 0).
static inline uint16_t cmhd_listener_port(const struct cmhd_listener *listener)
{
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(listener->socket, (struct sockaddr *)&address, &length) != 0) return 0;
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return ntohs(((struct sockaddr_in *)&address)->sin_port);
}

static void *cmhd_listener_accept_loop(void *context)
{
    struct cmhd_listener *listener = context;
    for (;;) {
        struct sockaddr_storage address;
        socklen_t length = sizeof address;
        // Close-on-exec from the start: a process started meanwhile (tests start the gateway and
        // the CLI from a process that serves) would otherwise keep the connection open.
        int client = accept4(listener->socket, (struct sockaddr *)&address, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client >= 0) {
            // libmicrohttpd owns the socket from here, and closes it itself if it refuses it
            // (that daemon at its connection limit).
            struct MHD_Daemon *daemon = listener->daemons[listener->next];
            listener->next = (listener->next + 1) % listener->daemon_count;
            (void)MHD_add_connection(daemon, client, (struct sockaddr *)&address, length);
            continue;
        }
        if (atomic_load(&listener->stopping)) return NULL;
        // A connection reset before it was accepted, or a signal: go on at once. Anything else
        // (out of descriptors, out of memory) is given a moment to pass rather than a busy loop.
        if (errno != EINTR && errno != ECONNABORTED && errno != EPROTO) {
            struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
}

// Starts dealing accepted connections out to `daemons` in turn. Each must have been started with
// MHD_USE_NO_LISTEN_SOCKET and MHD_USE_ITC (so that its thread sees a new connection at once).
// From this call on, whatever it returns, the listener owns the daemons: cmhd_listener_close
// stops them. Returns 0, or an errno value.
static inline int cmhd_listener_serve(struct cmhd_listener *listener, struct MHD_Daemon *const *daemons, unsigned int count)
{
    listener->daemons = calloc(count, sizeof *daemons);
    if (listener->daemons == NULL) {
        for (unsigned int i = 0; i < count; i++) MHD_stop_daemon(daemons[i]);
        return ENOMEM;
    }
    memcpy(listener->daemons, daemons, count * sizeof *daemons);
    listener->daemon_count = count;
    int error = count == 0 ? EINVAL : pthread_create(&listener->acceptor, NULL, cmhd_listener_accept_loop, listener);
    listener->accepting = error == 0;
    return error;
}

// Stops accepting (shutting a listening socket down wakes a thread blocked in accept), then stops
// the daemons, which finish their connections, and frees the listener.
static inline void cmhd_listener_close(struct cmhd_listener *listener)
{
    atomic_store(&listener->stopping, 1);
    shutdown(listener->socket, SHUT_RDWR);
    if (listener->accepting) pthread_join(listener->acceptor, NULL);
    close(listener->socket);
    for (unsigned int i = 0; i < listener->daemon_count; i++) MHD_stop_daemon(listener->daemons[i]);
    free(listener->daemons);
    free(listener);
}

#endif
