import CPostgres
import Foundation
import RelayCore
import Synchronization

/// Listens on one notification channel (`LISTEN`) on a libpq connection of its own, on a thread of its own,
/// and calls a handler when notifications arrive (once per wake-up, however many came together).
///
/// The thread blocks in poll(2) on the connection's socket, then reads with PQconsumeInput and PQnotifies
/// (https://www.postgresql.org/docs/current/libpq-notify.html). A connection that drops is opened again
/// with back-off (0.1 s doubling to 5 s); the handler is called after every (re)connection too, since
/// notifications sent while it was down are lost. ``stop()`` ends the thread within a poll timeout.
final class PostgresListener: Sendable {
    /// The outbox's channel for the tables in `schema`: `push_relay_` and the MD5 of the schema's name (hex),
    /// a plain identifier within PostgreSQL's 63 bytes. Notifications go to the whole database, so relays of
    /// another schema on it never hear this one's.
    static func outboxChannelSQL() -> String { "SELECT 'push_relay_' || md5(current_schema())" }

    /// Set by ``stop()``; the thread holds it, not the listener, so releasing the listener stops it.
    private final class Flag: Sendable {
        private let raised = Atomic<Bool>(false)
        /// Signalled once on raising: ends a back-off wait at once.
        private let wakeUp = DispatchSemaphore(value: 0)
        var isRaised: Bool { raised.load(ordering: .acquiring) }
        func raise() {
            guard !raised.exchange(true, ordering: .acquiringAndReleasing) else { return }
            wakeUp.signal()
        }
        /// Waits `seconds` (a due-time timer) unless raised first.
        func wait(seconds: Double) {
            guard !isRaised, wakeUp.wait(timeout: .now() + seconds) == .success else { return }
            wakeUp.signal()  // for a later wait: raised stays raised
        }
    }

    private let stopped = Flag()

    /// Starts listening on `channel` (an identifier) of the database at `url` (a libpq connection string);
    /// returns once the first `LISTEN` is in place, or after `readyTimeout` SECONDS when the server cannot
    /// be reached (the thread goes on trying), so notifications committed after it are heard.
    init(
        url: String,
        channel: String,
        logger: Logger,
        readyTimeout: Double = 5,
        handler: @escaping @Sendable () -> Void
    ) {
        let stopped = self.stopped
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [stopped] in
            ThreadName.setForThisThread("relay-pg-listen")
            Self.run(url: url, channel: channel, stopped: stopped, logger: logger, ready: ready, handler: handler)
        }
        thread.start()
        _ = ready.wait(timeout: .now() + readyTimeout)
    }

    /// Ends the thread and closes its connection (within a poll timeout); the handler is not called after.
    func stop() { stopped.raise() }

    deinit { stop() }

    /// How long one poll(2) waits, in MILLISECONDS: the longest ``stop()`` takes to be seen.
    private static let pollMilliseconds: Int32 = 200

    private static func run(
        url: String,
        channel: String,
        stopped: Flag,
        logger: Logger,
        ready: DispatchSemaphore,
        handler: @Sendable () -> Void
    ) {
        let firstBackoff = 0.1
        var backoff = firstBackoff
        var first = true
        // Set from a lost connection's warning until the next LISTEN: the failed reconnects between log at
        // debug (an outage would log one every few seconds), and the connection back at notice.
        var lost = false
        // Connecting waits at most `connect_timeout` (5 s unless the URL sets one), LISTEN at most 10 s.
        guard let parameters = try? PostgresConnectParameters(url: url, connectTimeout: 5) else { return }
        while !stopped.isRaised {
            guard let connection = parameters.connect() else { return }
            defer { PQfinish(connection) }
            if PQstatus(connection) == CONNECTION_OK, PQsetnonblocking(connection, 1) == 0, listen(connection, channel)
            {
                backoff = firstBackoff
                if lost { logger.notice("PostgreSQL notification connection back") }
                lost = false
                if first { ready.signal() }
                first = false
                handler()
                receive(connection, stopped: stopped, handler: handler)
                if stopped.isRaised { return }
            }
            logger.log(
                lost ? .debug : .warning,
                "PostgreSQL notification connection lost; reconnecting",
                ["error": parameters.errorMessage(connection), "retry.seconds": backoff]
            )
            lost = true
            stopped.wait(seconds: backoff)
            backoff = min(backoff * 2, 5)
        }
    }

    /// Sends `LISTEN channel`; false when the server refused it or did not answer within 10 s.
    private static func listen(_ connection: OpaquePointer, _ channel: String) -> Bool {
        guard PQsendQuery(connection, "LISTEN \(channel)") == 1,
            case .finished(let result?) = PostgresResultWait.lastResult(connection, deadline: .now + .seconds(10))
        else { return false }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_COMMAND_OK
    }

    /// Waits for notifications until stopped or the connection fails.
    private static func receive(_ connection: OpaquePointer, stopped: Flag, handler: () -> Void) {
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        while !stopped.isRaised {
            descriptor.revents = 0
            let ready = poll(&descriptor, 1, pollMilliseconds)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            guard PQconsumeInput(connection) == 1 else { return }
            var notified = false
            while let notification = PQnotifies(connection) {
                PQfreemem(notification)
                notified = true
            }
            if notified, !stopped.isRaised { handler() }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }
}
