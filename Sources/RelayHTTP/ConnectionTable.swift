import CMicroHTTPD
import Foundation
import RelayCore
import Synchronization

/// Every open connection of one server, and the rules that close one early:
/// - deadlines: a request's line and headers must arrive within ``HTTPServerConfiguration/headerTimeout``
///   seconds of the connection's start (or of the end of the previous request on it), its body within
///   ``HTTPServerConfiguration/bodyTimeout`` seconds of the headers' end. libmicrohttpd's own timeout only
///   measures inactivity, so a byte every few seconds renews it; these do not move while bytes trickle in.
/// - pace: a body slower than ``HTTPServerConfiguration/minBodyBytesPerSecond`` after its grace
///   (``BodyPace``), and answers taken by the client slower than that same pace: from the first answer it
///   has not acknowledged (`SIOCOUTQ`), answers to requests pipelined behind it included, the bytes it
///   acknowledges (`TCP_INFO`) must keep up, else the connection is closed.
/// - caps: connections per peer address and per address range (``ConnectionSlots``), counted on the TCP
///   peer; peers in ``HTTPServerConfiguration/trustedProxies`` are not capped. A connection over a cap is
///   closed as soon as it is accepted.
/// - shedding: from 90 % of the connection limit on, each new connection drops unfinished requests, the
///   slowest and oldest first (``LoadShedding``).
///
/// A connection is closed by `shutdown(2)` of its socket; libmicrohttpd then reads the end of the stream and
/// closes the connection itself. No answer is sent: libmicrohttpd has none to give while a request is still
/// arriving. A request whose handler runs is never closed here (the inactivity timeout still applies); once
/// its handler finished, an answer the client does not take is.
///
/// The socket is shut down under the same lock ``closed(_:)`` takes, and libmicrohttpd 0.9.75 reports a
/// connection closed (`MHD_CONNECTION_NOTIFY_CLOSED`, in `MHD_cleanup_connections`) before it closes its
/// socket: a socket in the table is still the connection's own, never a reused descriptor.
final class ConnectionTable: Sendable {
    /// What a connection is waiting for.
    enum Stage: String, Sendable {
        /// The request line and headers (or a TLS handshake first).
        case headers
        /// The rest of the body.
        case body
        /// The client taking an answer (the handler finished, or the server refused the request).
        case answer
    }

    private struct Entry {
        var socket: Int32
        var peer: String
        /// What the connection counts against the caps; `nil` when it is not capped.
        var slot: ConnectionSlots.Slot?
        /// `nil` while a request is being answered, and once the connection is being closed here.
        var stage: Stage?
        /// When the current stage began.
        var since: ContinuousClock.Instant
        var deadline: ContinuousClock.Instant
        /// Body bytes received in the body stage.
        var bytes = 0
        /// The connection's bytes received (`TCP_INFO`) when its last request ended; `nil` before its first.
        var receivedAtLastEnd: Int64?
        /// Answers queued on the connection and not all acknowledged by the peer: when the first of them was
        /// queued, and the connection's acknowledged bytes then (`TCP_INFO`). `nil` once the peer took
        /// everything.
        var sending: (since: ContinuousClock.Instant, acknowledged: Int64)?
        /// Shut down here; libmicrohttpd has not reported it closed yet.
        var dropped = false
    }

    private struct State {
        var open: [UInt: Entry] = [:]
        /// Entries with `dropped` set.
        var dropped = 0
        var slots: ConnectionSlots
        var shedding: LoadShedding
        var closures: [ConnectionClosure: Int] = [:]
    }

    private let headerTimeout: Duration
    private let bodyTimeout: Duration
    private let pace: BodyPace
    private let proxies: TrustedProxies
    private let state: Mutex<State>
    private let logger: Logger
    private let sweeping = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, proxies: TrustedProxies, logger: Logger) {
        headerTimeout = .seconds(configuration.headerTimeout)
        bodyTimeout = .seconds(configuration.bodyTimeout)
        pace = BodyPace(
            bytesPerSecond: configuration.minBodyBytesPerSecond,
            grace: .seconds(configuration.bodyRateGraceSeconds)
        )
        self.proxies = proxies
        self.logger = logger
        let slots = ConnectionSlots(
            perAddress: configuration.maxConnectionsPerAddress,
            perPrefix: configuration.maxConnectionsPerPrefix,
            ipv4PrefixLength: configuration.ipv4PrefixLength,
            ipv6PrefixLength: configuration.ipv6PrefixLength
        )
        let shedding = LoadShedding(limit: configuration.maxConnections, bytesPerSecond: pace.bytesPerSecond)
        state = Mutex(State(slots: slots, shedding: shedding))
    }

    /// Sets the connection limit in force (``HTTPServer`` lowers it to what the open-file limit allows), from
    /// which the shedding watermark is taken.
    func setLimit(_ limit: Int) { state.withLock { $0.shedding.limit = limit } }

    /// `MHD_CONNECTION_NOTIFY_STARTED`: counts the connection against its caps (closing it when over one),
    /// sheds others when the open connections reached the watermark, and starts the header deadline.
    func opened(_ connection: OpaquePointer, socket: Int32, peer: String) {
        let now = ContinuousClock.now
        let key = Self.key(connection)
        let events = state.withLock { state -> [(peer: String, closure: ConnectionClosure)] in
            var entry = Entry(socket: socket, peer: peer, stage: .headers, since: now, deadline: now + headerTimeout)
            var refused: ConnectionClosure?
            if let address = IPAddress(peer), !proxies.trusts(address) {
                switch state.slots.admit(address) {
                case .admitted(let slot): entry.slot = slot
                case .overAddressCap: refused = .addressCap
                case .overPrefixCap: refused = .prefixCap
                }
            }
            if let refused { Self.drop(&entry, in: &state, as: refused) }
            state.open[key] = entry
            if let refused { return [(peer, refused)] }
            return Self.shed(in: &state, sparing: key, now: now)
        }
        report(events)
    }

    /// `MHD_CONNECTION_NOTIFY_CLOSED`, before libmicrohttpd closes the socket.
    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.open.removeValue(forKey: Self.key(connection)) else { return }
            if let slot = entry.slot { state.slots.release(slot) }
            if entry.dropped { state.dropped -= 1 }
        }
    }

    /// The headers arrived: the body deadline and pace start now.
    func headersReceived(_ connection: OpaquePointer) { move(connection, to: .body, after: bodyTimeout) }

    /// `count` more body bytes arrived.
    func bodyReceived(_ connection: OpaquePointer, count: Int) {
        state.withLock { state in
            let key = Self.key(connection)
            guard state.open[key]?.stage == .body else { return }
            state.open[key]?.bytes += count
        }
    }

    /// The whole request arrived: no deadline while it is answered.
    func requestReceived(_ connection: OpaquePointer) { move(connection, to: nil, after: .zero) }

    /// An answer was queued: the client must take it, with any earlier answers it has not acknowledged yet,
    /// at the pace.
    func answerQueued(_ connection: OpaquePointer) {
        move(connection, to: .answer, after: .zero)
        let now = ContinuousClock.now
        state.withLock { state in
            let key = Self.key(connection)
            guard let entry = state.open[key], !entry.dropped else { return }
            // A pipelined request's answer joins the earlier ones the peer has not taken yet.
            if entry.sending != nil, cmhd_socket_unacknowledged_bytes(entry.socket) > 0 { return }
            let acknowledged = cmhd_socket_acknowledged_bytes(entry.socket)
            if acknowledged >= 0 { state.open[key]?.sending = (now, acknowledged) }
        }
    }

    /// The request ended (answered or aborted): the next request's header deadline starts now.
    func requestEnded(_ connection: OpaquePointer) {
        move(connection, to: .headers, after: headerTimeout) { entry in
            let received = cmhd_socket_received_bytes(entry.socket)
            entry.receivedAtLastEnd = received < 0 ? nil : received
        }
    }

    /// Moves the connection to `stage` with its deadline `timeout` from now, and applies `also` to its entry
    /// under the same lock.
    private func move(
        _ connection: OpaquePointer,
        to stage: Stage?,
        after timeout: Duration,
        also: (inout Entry) -> Void = { _ in }
    ) {
        let now = ContinuousClock.now
        state.withLock { state in
            let key = Self.key(connection)
            guard var entry = state.open[key], !entry.dropped else { return }
            entry.stage = stage
            entry.since = now
            entry.deadline = now + timeout
            entry.bytes = 0
            also(&entry)
            state.open[key] = entry
        }
    }

    /// Shuts down the socket of every connection past its deadline or behind the body or answer pace;
    /// returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        let events = state.withLock { state -> [(peer: String, closure: ConnectionClosure)] in
            var events: [(peer: String, closure: ConnectionClosure)] = []
            for (key, entry) in state.open {
                guard let stage = entry.stage else { continue }
                let closure: ConnectionClosure
                let taken = Self.taken(entry)
                if entry.sending != nil, taken == nil, stage != .answer { state.open[key]?.sending = nil }
                if let taken, let sending = entry.sending, pace.isBehind(bytes: taken, after: now - sending.since) {
                    closure = .slowAnswer
                } else if stage != .answer, entry.deadline <= now {
                    closure = stage == .body ? .bodyDeadline : Self.isIdle(entry) ? .idle : .headerDeadline
                } else if stage == .body, pace.isBehind(bytes: entry.bytes, after: now - entry.since) {
                    closure = .slowBody
                } else {
                    continue
                }
                var dropped = entry
                Self.drop(&dropped, in: &state, as: closure)
                state.open[key] = dropped
                events.append((entry.peer, closure))
            }
            return events
        }
        report(events)
        return events.count
    }

    /// Drops the candidates ``LoadShedding`` picks when the live connections reached its watermark, never
    /// the connection `spared` (the new one, to be served).
    private static func shed(
        in state: inout State,
        sparing spared: UInt,
        now: ContinuousClock.Instant
    ) -> [(peer: String, closure: ConnectionClosure)] {
        let excess = state.shedding.excess(live: state.open.count - state.dropped)
        guard excess > 0 else { return [] }
        let candidates = state.open.compactMap { key, entry -> LoadShedding.Candidate? in
            guard key != spared, entry.stage != nil else { return nil }
            if let sending = entry.sending, let taken = taken(entry) {
                return LoadShedding.Candidate(key: key, since: sending.since, bytes: taken)
            }
            return LoadShedding.Candidate(key: key, since: entry.since, bytes: entry.bytes)
        }
        return state.shedding.victims(among: candidates, count: excess, now: now).compactMap { key in
            guard var entry = state.open[key] else { return nil }
            drop(&entry, in: &state, as: .shed)
            state.open[key] = entry
            return (entry.peer, .shed)
        }
    }

    /// Whether the entry's peer sent nothing since its last request ended.
    private static func isIdle(_ entry: Entry) -> Bool {
        guard let received = entry.receivedAtLastEnd else { return false }
        return cmhd_socket_received_bytes(entry.socket) == received
    }

    /// Bytes the peer acknowledged since the entry's first unacknowledged answer was queued; `nil` when it
    /// has nothing left unacknowledged (or none is counted).
    private static func taken(_ entry: Entry) -> Int? {
        guard let sending = entry.sending, cmhd_socket_unacknowledged_bytes(entry.socket) > 0 else { return nil }
        let acknowledged = cmhd_socket_acknowledged_bytes(entry.socket)
        return acknowledged < 0 ? nil : Int(clamping: max(0, acknowledged - sending.acknowledged))
    }

    /// Shuts the entry's socket down (once) and counts why.
    private static func drop(_ entry: inout Entry, in state: inout State, as closure: ConnectionClosure) {
        guard !entry.dropped else { return }
        shutdown(entry.socket, Int32(SHUT_RDWR))
        entry.dropped = true
        entry.stage = nil
        state.dropped += 1
        state.closures[closure, default: 0] += 1
    }

    private func report(_ events: [(peer: String, closure: ConnectionClosure)]) {
        for (peer, closure) in events {
            logger.debug("connection closed early", ["http.closure": closure.rawValue, "net.peer": peer])
        }
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

    /// Open connections, and how many were closed early for each reason so far.
    var counts: (open: Int, closures: [ConnectionClosure: Int]) {
        state.withLock { ($0.open.count, $0.closures) }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}
