import CPostgres
import Foundation

/// Collects the results of a statement sent with libpq's asynchronous API (PQsendQuery,
/// PQsendQueryParams) on a connection in nonblocking mode, waiting in poll(2) on its socket with a
/// deadline instead of blocking in libpq, so a server that stops answering without closing its socket
/// (a frozen host: the kernel still ACKs, `statement_timeout` never fires) cannot hold the caller's thread
/// (https://www.postgresql.org/docs/current/libpq-async.html).
enum PostgresResultWait {
    enum Outcome {
        /// The last result, as PQexec gives it (nil: see PQerrorMessage). The caller owns it.
        case finished(OpaquePointer?)
        /// The deadline passed first; the connection is mid-statement and must be given up.
        case timedOut
    }

    /// Flushes what was sent, then reads until PQgetResult returns nil, keeping the last result (a COPY
    /// state or a lost connection ends it early, as in PQexec).
    static func lastResult(_ connection: OpaquePointer, deadline: ContinuousClock.Instant) -> Outcome {
        while true {
            let flushed = PQflush(connection)
            if flushed < 0 { return .finished(nil) }
            if flushed == 0 { break }
            // Read-ready: the server talks while we send; consume it so it can take the rest.
            guard let events = wait(connection, for: Int16(POLLIN | POLLOUT), until: deadline) else {
                return .timedOut
            }
            if events & Int16(POLLIN) != 0, PQconsumeInput(connection) == 0 { return .finished(nil) }
        }
        var last: OpaquePointer?
        while true {
            while PQisBusy(connection) == 1 {
                guard wait(connection, for: Int16(POLLIN), until: deadline) != nil else {
                    PQclear(last)
                    return .timedOut
                }
                // On failure libpq marks the connection bad and PQgetResult reports it.
                if PQconsumeInput(connection) == 0 { break }
            }
            guard let result = PQgetResult(connection) else { return .finished(last) }
            PQclear(last)
            last = result
            let status = PQresultStatus(result)
            if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH
                || PQstatus(connection) == CONNECTION_BAD
            {
                return .finished(last)
            }
        }
    }

    /// Polls the connection's socket for `events` until `deadline`; the events seen, nil once it passed.
    /// An error of poll(2) other than EINTR is returned as the events, so libpq's next call reports it.
    private static func wait(
        _ connection: OpaquePointer,
        for events: Int16,
        until deadline: ContinuousClock.Instant
    ) -> Int16? {
        var descriptor = pollfd(fd: PQsocket(connection), events: events, revents: 0)
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return nil }
            let milliseconds =
                remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            descriptor.revents = 0
            let ready = poll(&descriptor, 1, Int32(clamping: max(1, milliseconds)))
            if ready > 0 { return descriptor.revents }
            if ready < 0, errno != EINTR { return events }
        }
    }
}
