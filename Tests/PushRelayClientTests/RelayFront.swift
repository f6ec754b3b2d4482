import Foundation
import RelayCore
import RelayHTTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small real HTTP server (RelayHTTP's `HTTPServer` on 127.0.0.1) between the clients and the relay: it
/// records every request, answers the ones a test scripted itself (a 503, a 429 with `Retry-After`) and
/// forwards the others to the relay with URLSession. It can be stopped and started again on the same port,
/// so a client meets a refused connection.
final class RelayFront: Sendable {
    /// One request as the front received it, and who answered it.
    struct Seen: Sendable {
        var method: String
        var path: String
        var authorization: String?
        var app: String?
        var idempotencyKey: String?
        /// The status the front answered itself; nil when the relay answered.
        var scriptedStatus: Int?
    }

    /// An answer the front gives instead of the relay.
    private struct Scripted: Sendable {
        var path: String
        var status: Int
        var retryAfter: String?
        var remaining: Int
        /// Whether the request goes to the relay first (its answer then lost, as a proxy's timeout loses it).
        var afterForwarding = false
    }

    private struct State: Sendable {
        var seen: [Seen] = []
        var scripted: [Scripted] = []
    }

    /// Headers URLSession sets itself, or that belong to one hop.
    private static let hopHeaders: Set<String> = [
        "host", "content-length", "connection", "transfer-encoding", "expect", "accept-encoding", "keep-alive",
    ]

    let relayPort: Int
    private let state = Mutex(State())
    private let server = Mutex<HTTPServer?>(nil)
    private let boundPort = Mutex(0)

    init(relayPort: Int) {
        self.relayPort = relayPort
    }

    /// The front's port (the same across a stop and a start).
    var port: Int { boundPort.withLock { $0 } }

    /// Every request so far, in order.
    var seen: [Seen] { state.withLock { $0.seen } }

    /// The requests so far to `path`.
    func seen(_ path: String) -> [Seen] { seen.filter { $0.path == path } }

    /// Answers the next `times` requests to `path` with `status` and the relay's error body (code
    /// `scripted_<status>`), with `Retry-After: retryAfter` when given.
    func answer(_ path: String, status: Int, retryAfter: String? = nil, times: Int = 1) {
        state.withLock {
            $0.scripted.append(Scripted(path: path, status: status, retryAfter: retryAfter, remaining: times))
        }
    }

    /// Forwards the next request to `path` to the relay, then answers it `status` instead of the relay's
    /// answer.
    func answerAfterForwarding(_ path: String, status: Int) {
        state.withLock {
            $0.scripted.append(
                Scripted(path: path, status: status, retryAfter: nil, remaining: 1, afterForwarding: true)
            )
        }
    }

    /// Listens on 127.0.0.1: a free port the first time, the same port after ``stop()``; does nothing while
    /// listening.
    func start() throws {
        guard server.withLock({ $0 == nil }) else { return }
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.shutdownGracePeriod = 1
        let server = HTTPServer(
            configuration: configuration,
            handler: { [self] in await handle($0) },
            logger: .disabled()
        )
        try server.start()
        boundPort.withLock { $0 = server.port }
        self.server.withLock { $0 = server }
    }

    /// Stops listening: connections to the port are refused until ``start()``.
    func stop() async {
        let server = self.server.withLock { server -> HTTPServer? in
            defer { server = nil }
            return server
        }
        await server?.shutdown()
    }

    private func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let path = "/" + request.pathSegments.joined(separator: "/")
        let scripted = state.withLock { state -> Scripted? in
            let index = state.scripted.firstIndex { $0.path == path && $0.remaining > 0 }
            if let index { state.scripted[index].remaining -= 1 }
            state.seen.append(
                Seen(
                    method: request.method,
                    path: path,
                    authorization: request.headers["authorization"],
                    app: request.headers["x-pushrelay-app"],
                    idempotencyKey: request.headers["idempotency-key"],
                    scriptedStatus: index.map { state.scripted[$0].status }
                )
            )
            return index.map { state.scripted[$0] }
        }
        if let scripted {
            if scripted.afterForwarding { _ = await forward(request) }
            var headers = [("content-type", "application/json")]
            if let retryAfter = scripted.retryAfter { headers.append(("retry-after", retryAfter)) }
            let body = #"{"error":{"code":"scripted_\#(scripted.status)","message":"answered by the test's front"}}"#
            return HTTPResponse(status: scripted.status, headers: headers, body: Data(body.utf8))
        }
        return await forward(request)
    }

    private func forward(_ request: HTTPRequest) async -> HTTPResponse {
        let path = request.pathSegments.map(\.pathSegmentEncoded)
        var forwarded = URLRequest(url: URL(string: "http://127.0.0.1:\(relayPort)/\(path.joined(separator: "/"))")!)
        forwarded.httpMethod = request.method
        forwarded.timeoutInterval = 30
        for field in request.headers where !Self.hopHeaders.contains(field.name.lowercased()) {
            forwarded.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty { forwarded.httpBody = request.body }
        do {
            let (body, response) = try await URLSession.shared.data(for: forwarded)
            guard let http = response as? HTTPURLResponse else { return .text(status: 502, "not HTTP") }
            var headers: [(String, String)] = []
            for name in ["Content-Type", "Retry-After"] {
                if let value = http.value(forHTTPHeaderField: name) { headers.append((name.lowercased(), value)) }
            }
            return HTTPResponse(status: http.statusCode, headers: headers, body: body)
        } catch {
            return .text(status: 502, "the relay did not answer: \(error)")
        }
    }
}
