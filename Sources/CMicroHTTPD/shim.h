// Includes and typed wrappers for libmicrohttpd's variadic calls, which Swift cannot import.
#pragma once
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

// The HTTP status of the answer queued on a connection (by the relay or by libmicrohttpd itself), 0 when none is.
static inline unsigned int cmhd_connection_queued_status(struct MHD_Connection *_Nonnull c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info ? info->http_status : 0;
}

// The length of the request's line and header section, up to and including the line libmicrohttpd took for the
// empty one that ends it, or 0 when unknown.
static inline size_t cmhd_connection_header_size(struct MHD_Connection *_Nonnull c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

// The socket of a connection, or -1.
static inline int cmhd_connection_socket(struct MHD_Connection *_Nonnull c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// Bytes written to a socket that its peer has not acknowledged yet (`SIOCOUTQ`: queued plus in flight), or -1.
// `ioctl` is variadic, which Swift cannot call.
static inline int cmhd_socket_unacknowledged_bytes(int fd) {
    int count = 0;
    return ioctl(fd, SIOCOUTQ, &count) == 0 ? count : -1;
}

// The head of Linux's `struct tcp_info` up to `tcpi_bytes_received` (Linux 4.1, as `tcpi_bytes_acked` before
// it; the kernel only appends fields).
// glibc's own `struct tcp_info` stops before both, and <linux/tcp.h> clashes with glibc's in Swift's modules.
struct cmhd_tcp_info_head {
    uint8_t state, ca_state, retransmits, probes, backoff, options, wscale, flags;
    uint32_t rto, ato, snd_mss, rcv_mss, unacked, sacked, lost, retrans, fackets;
    uint32_t last_data_sent, last_ack_sent, last_data_recv, last_ack_recv;
    uint32_t pmtu, rcv_ssthresh, rtt, rttvar, snd_ssthresh, snd_cwnd, advmss, reordering, rcv_rtt, rcv_space;
    uint32_t total_retrans;
    uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
};

// Reads the connection's `TCP_INFO` head into `info`; 0 when the kernel does not give all of it.
static inline int cmhd_socket_tcp_info(int fd, struct cmhd_tcp_info_head *info) {
    socklen_t length = sizeof *info;
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &length) == 0 && length >= sizeof *info;
}

// Bytes of the connection its peer has acknowledged since it opened (`TCP_INFO`'s `tcpi_bytes_acked`), or -1
// when the kernel does not report it.
static inline int64_t cmhd_socket_acknowledged_bytes(int fd) {
    struct cmhd_tcp_info_head info;
    return cmhd_socket_tcp_info(fd, &info) ? (int64_t)info.bytes_acked : -1;
}

// Bytes of the connection received from its peer since it opened (`TCP_INFO`'s `tcpi_bytes_received`), or -1
// when the kernel does not report it.
static inline int64_t cmhd_socket_received_bytes(int fd) {
    struct cmhd_tcp_info_head info;
    return cmhd_socket_tcp_info(fd, &info) ? (int64_t)info.bytes_received : -1;
}
