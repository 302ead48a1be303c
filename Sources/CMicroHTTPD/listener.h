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
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

// glibc declares accept4 only for _GNU_SOURCE, which would have to come before the first system
// header of every file that includes this one (Swift's importer does not define it).
#ifndef __USE_GNU
extern int accept4(int socket, struct sockaddr *address, socklen_t *length, int flags);
#endif

// What the listener knows of one connection it handed out, kept at the index of its socket.
struct cmhd_connection_slot {
    int in_use;
    // The client's address as IPv6 (IPv4 mapped into it), for the per-address limit.
    unsigned char address[16];
    // When the connection's next request head must have arrived (CLOCK_MONOTONIC, ms): INT64_MAX
    // without a head timeout, 0 while it is not waiting for one. Set and cleared by the worker
    // thread without the lock.
    _Atomic int64_t head_deadline;
};

struct cmhd_listener {
    int socket;
    struct MHD_Daemon **daemons;
    unsigned int daemon_count;
    // The daemon that gets the next connection; only the acceptor thread uses it.
    unsigned int next;
    pthread_t acceptor;
    int accepting;
    atomic_int stopping;

    // Admission (cmhd_listener_admit); with no slots every connection is handed on.
    // libmicrohttpd 0.9.75 deadlocks when a connection added with MHD_add_connection finds its
    // daemon at MHD_OPTION_CONNECTION_LIMIT: new_connection_process_ leaves the daemon's
    // cleanup mutex locked on that path, and the daemon thread blocks on it for good. Its own
    // check before queueing does not count connections queued but not yet processed, so the
    // listener counts connections itself and never lets a daemon reach its limit.
    pthread_mutex_t slots_lock;
    struct cmhd_connection_slot *slots;
    unsigned int slot_count;
    // One past the highest socket ever given a slot: scans stop there. Sockets are numbered
    // lowest first, so it follows the most connections ever open, not the descriptor limit.
    unsigned int slots_used;
    unsigned int open;
    unsigned int max_connections;
    unsigned int max_per_address;
    int64_t head_timeout_ms;
    int64_t next_sweep;
    // A connection was refused since the last sweep; only the acceptor thread uses it.
    int refused_since_sweep;
    // What a connection refused at the total (503) and the per-address (429) limit is sent before
    // it is closed: whole HTTP responses, made by the application (cmhd_listener_refusals).
    char *refusal_at_limit, *refusal_per_address;
    size_t refusal_at_limit_length, refusal_per_address_length;
};

static inline int64_t cmhd_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

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

// Limits the connections the listener hands out (call before cmhd_listener_serve):
// `max_connections` open at once in all, `max_per_address` from one client address (0: no
// such limit), and a request head that has not arrived `head_timeout_ms` after its connection
// opened or its previous response was sent closes the connection (0: no deadline). The daemons
// must each allow more than `max_connections`. Connections are tracked by socket, in a table as
// large as the process's descriptor limit (untouched pages of it cost nothing). Returns 0, or
// an errno value.
static inline int cmhd_listener_admit(struct cmhd_listener *listener, unsigned int max_connections,
                                      unsigned int max_per_address, int64_t head_timeout_ms)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return errno;
    unsigned int slot_count = limit.rlim_cur > (1u << 24) ? (1u << 24) : (unsigned int)limit.rlim_cur;
    listener->slots = calloc(slot_count, sizeof *listener->slots);
    if (listener->slots == NULL) return ENOMEM;
    int error = pthread_mutex_init(&listener->slots_lock, NULL);
    if (error != 0) {
        free(listener->slots);
        listener->slots = NULL;
        return error;
    }
    listener->slot_count = slot_count;
    listener->max_connections = max_connections;
    listener->max_per_address = max_per_address;
    listener->head_timeout_ms = head_timeout_ms;
    // The acceptor then waits in poll, to sweep, and must not block in accept when a connection
    // poll saw was reset before it was taken.
    int flags = fcntl(listener->socket, F_GETFL);
    if (flags < 0 || fcntl(listener->socket, F_SETFL, flags | O_NONBLOCK) != 0) return errno;
    return 0;
}

static inline void cmhd_address_key(const struct sockaddr_storage *address, unsigned char key[16])
{
    memset(key, 0, 16);
    if (address->ss_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *)address)->sin6_addr, 16);
    } else if (address->ss_family == AF_INET) {
        key[10] = 0xff;
        key[11] = 0xff;
        memcpy(key + 12, &((const struct sockaddr_in *)address)->sin_addr, 4);
    }
}

// Keeps copies of the responses sent to connections refused at the total limit (503) and at the
// per-address one (429), each a whole HTTP response (call before cmhd_listener_serve); without
// them a refused connection is closed without a word. Returns 0, or an errno value.
static inline int cmhd_listener_refusals(struct cmhd_listener *listener, const void *at_limit, size_t at_limit_length,
                                         const void *per_address, size_t per_address_length)
{
    char *kept_at_limit = malloc(at_limit_length + 1), *kept_per_address = malloc(per_address_length + 1);
    if (kept_at_limit == NULL || kept_per_address == NULL) {
        free(kept_at_limit);
        free(kept_per_address);
        return ENOMEM;
    }
    if (at_limit_length > 0) memcpy(kept_at_limit, at_limit, at_limit_length);
    if (per_address_length > 0) memcpy(kept_per_address, per_address, per_address_length);
    free(listener->refusal_at_limit);
    free(listener->refusal_per_address);
    listener->refusal_at_limit = kept_at_limit;
    listener->refusal_at_limit_length = at_limit_length;
    listener->refusal_per_address = kept_per_address;
    listener->refusal_per_address_length = per_address_length;
    return 0;
}

// Answers a connection the listener will not serve with `answer`, and closes it. The client has
// not sent its request yet, so this is written at once, in one non-blocking send, and may be
// lost; the close is what matters.
static inline void cmhd_refuse(int client, const char *answer, size_t length)
{
    if (length > 0) (void)send(client, answer, length, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(client);
}

static inline int64_t cmhd_head_deadline(const struct cmhd_listener *listener)
{
    return listener->head_timeout_ms > 0 ? cmhd_now_ms() + listener->head_timeout_ms : INT64_MAX;
}

// Takes a slot for an accepted connection, or says why not: 0, 503 or 429.
static inline int cmhd_listener_take_slot(struct cmhd_listener *listener, int client, const struct sockaddr_storage *address)
{
    if (client < 0 || (unsigned int)client >= listener->slot_count) return 503;
    unsigned char key[16];
    cmhd_address_key(address, key);
    int refusal = 0;
    pthread_mutex_lock(&listener->slots_lock);
    struct cmhd_connection_slot *slot = &listener->slots[client];
    // A slot still in use under this socket number belongs to a connection libmicrohttpd closed
    // without telling (it could not set it up): the new connection takes it over.
    int reused = slot->in_use;
    if (!reused && listener->open >= listener->max_connections) {
        refusal = 503;
    } else if (listener->max_per_address > 0) {
        unsigned int same = 0;
        for (unsigned int i = 0; i < listener->slots_used && same < listener->max_per_address; i++) {
            if (listener->slots[i].in_use && (int)i != client && memcmp(listener->slots[i].address, key, 16) == 0) same++;
        }
        if (same >= listener->max_per_address) refusal = 429;
    }
    if (refusal == 0) {
        if (!reused) listener->open++;
        if ((unsigned int)client >= listener->slots_used) listener->slots_used = (unsigned int)client + 1;
        slot->in_use = 1;
        memcpy(slot->address, key, 16);
        atomic_store(&slot->head_deadline, cmhd_head_deadline(listener));
    } else if (reused) {
        slot->in_use = 0;
        listener->open--;
    }
    pthread_mutex_unlock(&listener->slots_lock);
    return refusal;
}

// The connection on socket `client` is closed (libmicrohttpd's MHD_CONNECTION_NOTIFY_CLOSED,
// which comes before it closes the socket), or was never taken on.
static inline void cmhd_listener_release(struct cmhd_listener *listener, int client)
{
    if (listener->slots == NULL || client < 0 || (unsigned int)client >= listener->slot_count) return;
    pthread_mutex_lock(&listener->slots_lock);
    struct cmhd_connection_slot *slot = &listener->slots[client];
    if (slot->in_use) {
        slot->in_use = 0;
        atomic_store(&slot->head_deadline, 0);
        listener->open--;
    }
    pthread_mutex_unlock(&listener->slots_lock);
}

// The connection's request head has arrived: no deadline until its response is sent.
static inline void cmhd_listener_head_arrived(struct cmhd_listener *listener, int client)
{
    if (listener->slots == NULL || client < 0 || (unsigned int)client >= listener->slot_count) return;
    atomic_store_explicit(&listener->slots[client].head_deadline, 0, memory_order_relaxed);
}

// The connection's response is sent: its next request head is due within the head timeout.
static inline void cmhd_listener_await_head(struct cmhd_listener *listener, int client)
{
    if (listener->slots == NULL || client < 0 || (unsigned int)client >= listener->slot_count) return;
    atomic_store_explicit(&listener->slots[client].head_deadline, cmhd_head_deadline(listener), memory_order_relaxed);
}

// Shuts down the connections whose request head is overdue; libmicrohttpd sees the socket end
// and closes the connection itself. Under the lock, so no socket is shut down after its
// connection closed it (its slot is released first).
// With `reap_closed`, also those waiting for a head whose client has closed its end:
// libmicrohttpd 0.9.75 can miss the end of a connection that a client closes while its
// response is being written (an edge of its epoll set is lost), and holds it until its idle
// timeout. Shut down from here, the socket raises a new event and is closed at once. Run only
// after a refusal, as it asks every waiting socket.
static inline void cmhd_listener_sweep(struct cmhd_listener *listener, int64_t now, int reap_closed)
{
    pthread_mutex_lock(&listener->slots_lock);
    for (unsigned int i = 0; i < listener->slots_used; i++) {
        struct cmhd_connection_slot *slot = &listener->slots[i];
        if (!slot->in_use) continue;
        int64_t deadline = atomic_load_explicit(&slot->head_deadline, memory_order_relaxed);
        if (deadline == 0) continue;
        if (deadline <= now) {
            atomic_store(&slot->head_deadline, 0);
            shutdown((int)i, SHUT_RDWR);
        } else if (reap_closed) {
            char byte;
            if (recv((int)i, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
                atomic_store(&slot->head_deadline, 0);
                shutdown((int)i, SHUT_RDWR);
            }
        }
    }
    pthread_mutex_unlock(&listener->slots_lock);
}

static void *cmhd_listener_accept_loop(void *context)
{
    struct cmhd_listener *listener = context;
    for (;;) {
        if (listener->slots != NULL) {
            // Woken at least every quarter second to close connections whose head is overdue,
            // and, after a refusal, those their clients have left.
            int64_t now = cmhd_now_ms();
            if (now >= listener->next_sweep) {
                int refused = listener->refused_since_sweep;
                listener->refused_since_sweep = 0;
                cmhd_listener_sweep(listener, now, refused);
                listener->next_sweep = now + 250;
            }
            struct pollfd ready = {.fd = listener->socket, .events = POLLIN};
            int waited = poll(&ready, 1, (int)(listener->next_sweep - now));
            if (waited == 0) continue;
            if (atomic_load(&listener->stopping)) return NULL;
        }
        struct sockaddr_storage address;
        socklen_t length = sizeof address;
        // Close-on-exec from the start: a process started meanwhile (tests start the gateway and
        // the CLI from a process that serves) would otherwise keep the connection open.
        int client = accept4(listener->socket, (struct sockaddr *)&address, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client >= 0) {
            if (listener->slots != NULL) {
                int refusal = cmhd_listener_take_slot(listener, client, &address);
                if (refusal != 0) {
                    if (refusal == 429) cmhd_refuse(client, listener->refusal_per_address, listener->refusal_per_address_length);
                    else cmhd_refuse(client, listener->refusal_at_limit, listener->refusal_at_limit_length);
                    listener->refused_since_sweep = 1;
                    continue;
                }
            }
            // libmicrohttpd owns the socket from here, and closes it itself if it refuses it.
            struct MHD_Daemon *daemon = listener->daemons[listener->next];
            listener->next = (listener->next + 1) % listener->daemon_count;
            if (MHD_add_connection(daemon, client, (struct sockaddr *)&address, length) != MHD_YES)
                cmhd_listener_release(listener, client);
            continue;
        }
        if (atomic_load(&listener->stopping)) return NULL;
        // A connection reset before it was accepted, or a signal: go on at once. Anything else
        // (out of descriptors, out of memory) is given a moment to pass rather than a busy loop.
        if (errno != EINTR && errno != ECONNABORTED && errno != EPROTO && errno != EAGAIN) {
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
    free(listener->refusal_at_limit);
    free(listener->refusal_per_address);
    if (listener->slots != NULL) {
        pthread_mutex_destroy(&listener->slots_lock);
        free(listener->slots);
    }
    free(listener);
}

#endif
