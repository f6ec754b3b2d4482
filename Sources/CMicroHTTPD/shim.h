// Includes and typed wrappers for libmicrohttpd's variadic calls, which Swift cannot import.
#pragma once
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

// Starts a daemon with its callbacks fixed and the remaining options (the listen address, limits, TLS) given
// as an array terminated by `{MHD_OPTION_END, 0, NULL}`. The logger comes first, as libmicrohttpd asks, so
// every message of the start reaches it. `context` goes to the request and connection callbacks, `log_context`
// to the logger.
static inline struct MHD_Daemon *_Nullable cmhd_start_daemon(
    unsigned int flags,
    uint16_t port,
    MHD_AccessHandlerCallback _Nonnull handler,
    MHD_RequestCompletedCallback _Nonnull completed,
    MHD_NotifyConnectionCallback _Nonnull connection_notify,
    void *_Nullable (*_Nonnull uri_log)(void *_Nullable, const char *_Nonnull, struct MHD_Connection *_Nonnull),
    void *_Nullable context,
    MHD_LogCallback _Nonnull log,
    void *_Nullable log_context,
    const struct MHD_OptionItem *_Nonnull options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
        MHD_OPTION_EXTERNAL_LOGGER, log, log_context,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notify, context,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, context,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

// The port a daemon is bound to (useful after binding port 0), or 0 if unknown.
static inline uint16_t cmhd_daemon_bound_port(struct MHD_Daemon *_Nonnull daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// The peer address of a connection, or NULL.
static inline const struct sockaddr *_Nullable cmhd_connection_client_address(struct MHD_Connection *_Nonnull c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

// The socket of a connection, or -1.
static inline int cmhd_connection_socket(struct MHD_Connection *_Nonnull c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
