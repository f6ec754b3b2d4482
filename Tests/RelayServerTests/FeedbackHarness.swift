import APNsMock
import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayOutbox
import RelayServer
import RelayStore
import RelayTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real relay (HTTP on 127.0.0.1 port 0, SQLite file in a temporary directory) sending over TLS to a real
/// mock APNs that trusts the relay's generated provider key; for the feedback, dead-token and readiness
/// tests. Names are prefixed so they never clash with other test files of this target.
final class FeedbackHarness: Sendable {
    struct App: Sendable {
        var id: String
        var apiKey: String
    }

    /// One answer of the relay.
    typealias Answer = TestResponse

    let mock: MockAPNsServer
    /// The relay under test, live on a socket.
    let testRelay: TestRelay
    /// Its running relay.
    let relay: Relay
    let apps: [App]

    init(mock: MockAPNsServer, testRelay: TestRelay, relay: Relay, apps: [App]) {
        self.mock = mock
        self.testRelay = testRelay
        self.relay = relay
        self.apps = apps
    }

    /// Starts the mock (with `script`) and a relay with `appCount` apps (`app0`, `app1`, …) sending to it;
    /// `configure` may change the configuration (e.g. set a feedbackURL). Always shuts both down.
    static func with(
        appCount: Int = 1,
        script: MockScript = MockScript(),
        feedback: FeedbackSender.Settings = .init(),
        configure: (inout Configuration) -> Void = { _ in },
        _ body: (FeedbackHarness) async throws -> Void
    ) async throws {
        try await withRelayTestBed(appCount: appCount, script: script, configure: configure) { bed in
            let relay = bed.testRelay(options: .init(feedback: feedback, gaugeInterval: .milliseconds(500)))
            try await relay.run {
                try await body(
                    FeedbackHarness(
                        mock: bed.mock,
                        testRelay: relay,
                        relay: try relay.relay,
                        apps: bed.apps.map { App(id: $0.id, apiKey: $0.apiKey) }
                    )
                )
            }
        }
    }

    /// One request to the relay; `key` nil sends no Authorization, else `Bearer <key>`.
    func call(
        _ method: String,
        _ path: String,
        json: Any? = nil,
        body: Data? = nil,
        key: String?,
        headers: [String: String] = [:]
    ) async throws -> Answer {
        try await testRelay.call(method, path, json: json, body: body, bearer: key, headers: headers)
    }

    /// `GET path` on the relay's admin listener (`http.admin`), without a key.
    func adminCall(_ path: String) async throws -> Answer { try await testRelay.adminCall(path) }

    /// Registers `token` for `user` in room `general` of `app`, then has alice post a message there (signed
    /// with `secret` when the app requires signed webhooks).
    func registerAndNotify(token: String, user: String, app: App, secret: String? = nil) async throws {
        let registered = try await call(
            "POST",
            "/v1/devices",
            json: ["token": token, "userId": user, "rooms": ["general"]],
            key: app.apiKey
        )
        try #require([200, 201].contains(registered.status), "register: \(registered.text)")
        let body = try JSONSerialization.data(
            withJSONObject: ["roomId": "general", "senderId": "alice", "text": "hi", "messageId": UUID().uuidString]
        )
        var headers: [String: String] = [:]
        if let secret {
            let signature = WebhookSignature.sign(body, secret: secret, timestamp: Int(Date().timeIntervalSince1970))
            headers[WebhookSignature.header] = signature
        }
        let sent = try await call(
            "POST",
            "/v1/webhooks/did-send-message",
            body: body,
            key: app.apiKey,
            headers: headers
        )
        try #require(sent.status == 202, "webhook: \(sent.text)")
    }

    /// Polls `GET /v1/dead-tokens` until it lists `count` tokens; fails after `timeout`.
    func deadTokens(count: Int, app: App, timeout: Duration = .seconds(20)) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let answer = try await call("GET", "/v1/dead-tokens", key: app.apiKey)
            try #require(answer.status == 200, "dead-tokens: \(answer.status) \(answer.text)")
            let list = try answer.json()["deadTokens"] as? [[String: Any]] ?? []
            if list.count >= count { return list }
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "only \(list.count) dead tokens")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// An APNs 410 `timestamp` (MILLISECONDS) a minute from now: later than any registration in the test, so
    /// the token is retired (an older one would leave a token registered since then alone).
    static func futureAPNsTimestamp() -> Int64 { Int64((Date().timeIntervalSince1970 + 60) * 1000) }

    /// A random 32-byte device token, lowercase hex.
    static func randomToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A loopback TCP port nothing listens on, held for the test: bound but never listening, so connecting
    /// is refused and no other test can take the port meanwhile. Keep the returned holder alive.
    static func closedPort() throws -> ClosedPort { try ClosedPort() }
}

/// A real HTTP server on port 0 standing in for an app's feedback URL: records every request and answers
/// the scripted statuses in order, then 200.
final class FeedbackReceiver: Sendable {
    struct Received: Sendable {
        var headers: HTTPHeaders
        var body: Data
        var answered: Int
    }

    /// The scripted answers left and what arrived, shared with the server's handler.
    private final class Log: Sendable {
        let state: Mutex<(script: [Int], received: [Received])>
        init(script: [Int]) { state = Mutex((script: script, received: [])) }
    }

    private let server: HTTPServer
    private let log: Log

    init(answers: [Int]) throws {
        let log = Log(script: answers)
        self.log = log
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        server = HTTPServer(
            configuration: configuration,
            handler: { request in
                let status = log.state.withLock { state -> Int in
                    let status = state.script.isEmpty ? 200 : state.script.removeFirst()
                    state.received.append(Received(headers: request.headers, body: request.body, answered: status))
                    return status
                }
                return HTTPResponse(status: status, body: Data("{\"ignored\":true}".utf8))
            },
            logger: .disabled()
        )
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.port)/feedback" }
    var received: [Received] { log.state.withLock { $0.received } }

    func shutdown() async { await server.shutdown() }
}

/// A socket bound to a loopback port without listening; the port refuses connections while it lives.
final class ClosedPort: @unchecked Sendable {
    // @unchecked Sendable: both properties are immutable after init.
    let fd: Int32
    let port: Int
    init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        guard bound == 0 else {
            close(socketFD)
            throw POSIXError(.EADDRINUSE)
        }
        fd = socketFD
        port = Int(UInt16(bigEndian: address.sin_port))
    }
    deinit { close(fd) }
}
