import Foundation
import RelayCore
import Synchronization

/// The deadlines of every open connection: its request's line and headers must arrive within
/// ``HTTPServerConfiguration/headerTimeout`` seconds of the connection's start (or of the end of the previous
/// request on it), and its body within ``HTTPServerConfiguration/bodyTimeout`` seconds of the headers' end.
/// libmicrohttpd's own timeout only measures inactivity, so a byte every few seconds renews it; these do not
/// move while bytes trickle in.
///
/// ``sweep(now:)`` `shutdown(2)`s the socket of a connection past its deadline; libmicrohttpd then reads the
/// end of the stream and closes the connection itself. No answer is sent: libmicrohttpd has none to give
/// while a request is still arriving. A request whose handler runs, or whose answer is being written, has no
/// deadline here (the inactivity timeout still applies).
///
/// The socket is shut down under the same lock ``closed(_:)`` takes, and libmicrohttpd 0.9.75 reports a
/// connection closed (`MHD_CONNECTION_NOTIFY_CLOSED`, in `MHD_cleanup_connections`) before it closes its
/// socket: a socket in the table is still the connection's own, never a reused descriptor.
final class ConnectionDeadlines: Sendable {
    /// What a connection is waiting for.
    enum Stage: String, Sendable {
        /// The request line and headers (or a TLS handshake first).
        case headers
        /// The rest of the body.
        case body
    }

    private struct Entry {
        var socket: Int32
        var peer: String
        /// `nil` while a request is being answered.
        var stage: Stage?
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var open: [UInt: Entry] = [:]
        var closedAtHeaders = 0
        var closedAtBody = 0
    }

    private let headerTimeout: Duration
    private let bodyTimeout: Duration
    private let state = Mutex(State())
    private let logger: Logger
    private let sweeping = Atomic<Bool>(false)

    init(headerTimeout: Duration, bodyTimeout: Duration, logger: Logger) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.logger = logger
    }

    /// `MHD_CONNECTION_NOTIFY_STARTED`: the header deadline starts now.
    func opened(_ connection: OpaquePointer, socket: Int32, peer: String) {
        let entry = Entry(socket: socket, peer: peer, stage: .headers, deadline: .now + headerTimeout)
        state.withLock { $0.open[Self.key(connection)] = entry }
    }

    /// `MHD_CONNECTION_NOTIFY_CLOSED`, before libmicrohttpd closes the socket.
    func closed(_ connection: OpaquePointer) {
        state.withLock { _ = $0.open.removeValue(forKey: Self.key(connection)) }
    }

    /// The headers arrived: the body deadline starts now.
    func headersReceived(_ connection: OpaquePointer) { move(connection, to: .body, after: bodyTimeout) }

    /// The whole request arrived: no deadline while it is answered.
    func requestReceived(_ connection: OpaquePointer) { move(connection, to: nil, after: .zero) }

    /// The request ended (answered or aborted): the next request's header deadline starts now.
    func requestEnded(_ connection: OpaquePointer) { move(connection, to: .headers, after: headerTimeout) }

    private func move(_ connection: OpaquePointer, to stage: Stage?, after timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        state.withLock { state in
            let key = Self.key(connection)
            guard state.open[key] != nil else { return }
            state.open[key]?.stage = stage
            state.open[key]?.deadline = deadline
        }
    }

    /// Shuts down the socket of every connection past its deadline; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        let expired = state.withLock { state -> [(peer: String, stage: Stage)] in
            var expired: [(peer: String, stage: Stage)] = []
            for (key, entry) in state.open {
                guard let stage = entry.stage, entry.deadline <= now else { continue }
                shutdown(entry.socket, Int32(SHUT_RDWR))
                expired.append((entry.peer, stage))
                switch stage {
                case .headers: state.closedAtHeaders += 1
                case .body: state.closedAtBody += 1
                }
                // Shut down once; libmicrohttpd reports it closed soon after.
                state.open[key]?.stage = nil
            }
            return expired
        }
        for (peer, stage) in expired {
            logger.debug("connection closed at its deadline", ["http.stage": stage.rawValue, "net.peer": peer])
        }
        return expired.count
    }

    /// Starts a thread of its own that sweeps four times a second until ``stopSweeping()``: the deadlines
    /// hold however busy Swift's cooperative pool is.
    func startSweeping() {
        sweeping.store(true, ordering: .releasing)
        Thread { [self] in
            ThreadName.setForThisThread("http-deadlines")
            while sweeping.load(ordering: .acquiring) {
                Thread.sleep(forTimeInterval: 0.25)
                sweep()
            }
        }.start()
    }

    /// Ends the sweeping thread within a quarter of a second.
    func stopSweeping() { sweeping.store(false, ordering: .releasing) }

    /// Open connections, and how many were closed at each deadline so far.
    var counts: (open: Int, closedAtHeaders: Int, closedAtBody: Int) {
        state.withLock { ($0.open.count, $0.closedAtHeaders, $0.closedAtBody) }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}
