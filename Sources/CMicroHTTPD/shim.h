#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "listener.h"

// libmicrohttpd configures a daemon through a variadic option list, which Swift cannot call.
// These wrappers give Swift fixed signatures for the options the gateway uses.

typedef void *(*cmhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

// The state a connection was given when it started (MHD_OPTION_NOTIFY_CONNECTION); the info
// query is variadic.
static inline void *cmhd_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

// A daemon with one worker thread and no listening socket of its own: a `cmhd_listener` hands it
// its share of the connections.
static inline struct MHD_Daemon *cmhd_start_daemon(
    unsigned int flags,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    cmhd_uri_log_callback uri_log, void *uri_log_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int connection_timeout_seconds,
    size_t connection_memory_limit,
    unsigned int connection_limit,
    const char *tls_key_pem, const char *tls_cert_pem)
{
    // With a key and certificate the daemon speaks TLS (GnuTLS) on every connection, those the
    // listener adds with MHD_add_connection included: libmicrohttpd sets up the session as it
    // takes the socket in, and the handshake comes before anything is read as HTTP.
    struct MHD_OptionItem options[] = {
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls },
        { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, uri_log_cls },
        { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify_connection, notify_connection_cls },
        { MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)connection_memory_limit, NULL },
        { MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL },
        { MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem },
        { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem },
        { MHD_OPTION_END, 0, NULL },
    };
    int tls = tls_key_pem != NULL && tls_cert_pem != NULL;
    if (!tls) options[6].option = MHD_OPTION_END;
    return MHD_start_daemon(flags | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | (tls ? MHD_USE_TLS : 0), 0, NULL, NULL,
        handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

// Whether this libmicrohttpd was built with TLS (GnuTLS).
static inline int cmhd_tls_supported(void)
{
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

// The socket of a connection (the listener keeps its accounting by socket).
static inline int cmhd_connection_socket(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// Blocks of `threshold` bytes and more (request bodies, large responses) are mapped on their own
// and unmapped when freed. glibc would otherwise raise its threshold after the first such free
// and serve the next ones from its heap, which it keeps: memory taken by a burst of large bodies
// stayed with the process after their connections closed. Process-wide.
static inline void cmhd_map_large_blocks(size_t threshold)
{
    (void)mallopt(M_MMAP_THRESHOLD, (int)threshold);
}

// The length of the current request's line and header fields, up to and with the empty line
// (the info query is variadic).
static inline size_t cmhd_request_header_size(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

// The address of the connection's client, or NULL.
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
