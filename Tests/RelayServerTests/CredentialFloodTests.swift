import Foundation
import RelayCore
import RelayHTTP
import RelayTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A flood of junk user credentials from one address range, against a real, slow Ditto auth webhook that
/// counts its calls, while a real user elsewhere signs in. Clients are told apart by `X-Forwarded-For`
/// from a trusted proxy (the test itself, on 127.0.0.1), as a relay behind a load balancer sees them.
@Suite struct CredentialFloodTests {
    /// The range the junk comes from: 127.0.66.0/24.
    static func junkAddress(_ index: Int) -> String { "127.0.66.\(1 + index % 250)" }

    @Test func aFloodFromOneRangeNeitherReachesTheWebhookNorKeepsOthersOut() async throws {
        let webhook = try SlowAuthWebhook(delay: .milliseconds(300), users: ["alice-session": "alice"])
        let limits = Configuration.HTTP.CredentialFailures(
            perAddressBurst: 4,
            perAddressPerMinute: 1,
            perPrefixBurst: 8,
            perPrefixPerMinute: 1
        )
        let started = ContinuousClock.now
        do {
            try await withRelayAndMock(configure: {
                $0.http.trustedProxies = ["127.0.0.1"]
                $0.http.maxConnectionsPerAddress = 200
                $0.http.credentialFailures = limits
                // A generous timeout: on a loaded test machine the webhook's 300 ms answer can take seconds.
                $0.apps[0].userAuth = .init(
                    dittoAuthWebhook: .init(url: webhook.url, provider: "my-auth", timeoutMilliseconds: 30_000)
                )
            }) { relay in
                // Eighty clients at once, more than the webhook's 64 calls: before the limit, Alice got 503.
                let workers = 80
                let minimumJunk = 400
                let flood = Flood()
                let session = Self.floodSession(connections: workers)
                let port = try relay.relay.port
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<workers {
                        group.addTask {
                            while let index = flood.next(minimum: minimumJunk) {
                                let (status, code, retryAfter) = try await Self.junk(
                                    session,
                                    port: port,
                                    app: relay.app.id,
                                    from: Self.junkAddress(index + worker)
                                )
                                #expect(
                                    (status == 401 && code == "invalid_credential")
                                        || (status == 429 && code == "rate_limited" && (retryAfter ?? 0) >= 1),
                                    "\(status) \(code)"
                                )
                                flood.record(status)
                                // A refused client comes back a little later rather than spin: on a loaded
                                // machine eighty spinning clients starve the relay's other callers.
                                if status == 429 { try await Task.sleep(for: .milliseconds(20)) }
                            }
                        }
                    }
                    // While the flood runs (the webhook is busy with it), Alice signs in from elsewhere.
                    try await waitUntil("a call of the webhook") { webhook.calls(excluding: "alice-session") > 0 }
                    let alice = try await Self.aliceSignsIn(port: port, app: relay.app.id)
                    #expect(alice.status == 200, "\(alice.status) \(alice.code)")
                    flood.stop()
                    try await group.waitForAll()
                }
                let junkRequests = flood.sent
                let statuses = flood.statuses
                let elapsedMinutes = (ContinuousClock.now - started).timeInterval / 60
                let junkCalls = webhook.calls(excluding: "alice-session")
                // The range's bucket: its burst, and what drained meanwhile (one a minute).
                let bound =
                    limits.perPrefixBurst + Int((elapsedMinutes * Double(limits.perPrefixPerMinute)).rounded(.up))
                #expect(junkCalls <= bound, "\(junkCalls) webhook calls for \(junkRequests) junk requests")
                #expect(statuses[429, default: 0] >= junkRequests - bound)
                let metrics = try relay.relay.metrics.render()
                #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="credential_failures"}"#))
                print(
                    "credential flood: \(junkRequests) junk requests from one /24, \(junkCalls) webhook calls "
                        + "(\(Double(junkCalls) / Double(junkRequests)) a request)"
                )
                // Alice's token, accepted once, is served from the cache even from the flooded range.
                let cached = try await relay.call(
                    "GET",
                    "/v1/users/alice/devices",
                    key: "alice-session",
                    headers: ["X-PushRelay-App": relay.app.id, "X-Forwarded-For": Self.junkAddress(0)]
                )
                #expect(cached.status == 200, "\(cached.text)")
                #expect(webhook.calls(for: "alice-session") == 1)
                // A fresh login from the flooded range waits its turn, before the webhook hears of it.
                let fresh = try await relay.call(
                    "GET",
                    "/v1/users/bob/devices",
                    key: "bob-session",
                    headers: ["X-PushRelay-App": relay.app.id, "X-Forwarded-For": Self.junkAddress(1)]
                )
                #expect(fresh.status == 429 && fresh.header("Retry-After") != nil)
                #expect(webhook.calls(for: "bob-session") == 0)
            }
        } catch {
            await webhook.shutdown()
            throw error
        }
        await webhook.shutdown()
    }

    /// Junk from six ranges at their limit (16 checks each, 96 against the webhook's 64 calls), over and over,
    /// against a webhook that takes 2 s a call: a fresh login from a seventh range waits for a call, gets
    /// the first that ends (the flooding ranges each hold some), and signs in.
    @Test func aFloodFromSeveralRangesLetsAFreshLoginFromAnotherIn() async throws {
        let webhook = try SlowAuthWebhook(delay: .seconds(2), users: ["alice-session": "alice"])
        let ranges = 6
        let perRange = Configuration.HTTP.CredentialFailures().perPrefixBurst
        do {
            try await withRelayAndMock(configure: {
                $0.http.trustedProxies = ["127.0.0.1"]
                $0.http.maxConnectionsPerAddress = 400
                $0.http.maxConnectionsPerPrefix = 400
                $0.apps[0].userAuth = .init(
                    dittoAuthWebhook: .init(url: webhook.url, provider: "my-auth", timeoutMilliseconds: 30_000)
                )
            }) { relay in
                let flood = Flood()
                let session = Self.floodSession(connections: ranges * perRange)
                let port = try relay.relay.port
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for range in 0..<ranges {
                        for client in 0..<perRange {
                            group.addTask {
                                while flood.next(minimum: 0) != nil {
                                    let (status, code, _) = try await Self.junk(
                                        session,
                                        port: port,
                                        app: relay.app.id,
                                        from: "127.0.\(70 + range).\(1 + client)"
                                    )
                                    #expect(
                                        [401: "invalid_credential", 429: "rate_limited", 503: "auth_unavailable"][
                                            status
                                        ] == code,
                                        "\(status) \(code)"
                                    )
                                    flood.record(status)
                                    // A refused client does not spin: it comes back a little later.
                                    if status == 429 { try await Task.sleep(for: .milliseconds(100)) }
                                }
                            }
                        }
                    }
                    // Every webhook call is taken by the flood when Alice, in yet another range, signs in.
                    // (A loaded test machine's junk clients can take long to get there.)
                    try await waitUntil("64 calls of the webhook", timeout: .seconds(90)) {
                        webhook.calls(excluding: "alice-session") >= 64
                    }
                    let alice = try await Self.aliceSignsIn(port: port, app: relay.app.id)
                    #expect(alice.status == 200, "\(alice.status) \(alice.code)")
                    flood.stop()
                    try await group.waitForAll()
                }
                #expect(webhook.calls(for: "alice-session") == 1)
                #expect(webhook.mostInFlight <= 64, "the webhook had \(webhook.mostInFlight) calls at once")
                print(
                    "credential flood from \(ranges) ranges: \(flood.sent) junk requests \(flood.statuses), "
                        + "\(webhook.calls(excluding: "alice-session")) webhook calls, at most "
                        + "\(webhook.mostInFlight) at once"
                )
            }
        } catch {
            await webhook.shutdown()
            throw error
        }
        await webhook.shutdown()
    }

    /// A session of its own that opens as many connections at once as the flood has clients.
    static func floodSession(connections: Int) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        // A junk check may wait a whole webhook timeout for a call and then take the call itself.
        configuration.timeoutIntervalForRequest = 120
        return URLSession(configuration: configuration)
    }

    /// Alice's `GET /v1/users/alice/devices` from 127.0.99.7, through a session like the flood's, of her own:
    /// its timeout, unlike the harness's 30 s, outlasts a whole webhook wait, so a loaded machine's slow
    /// answer is told apart from a refusal.
    static func aliceSignsIn(port: Int, app: String) async throws -> (status: Int, code: String, retryAfter: Int?) {
        try await junk(
            floodSession(connections: 1),
            port: port,
            app: app,
            from: "127.0.99.7",
            bearer: "alice-session",
            user: "alice"
        )
    }

    /// `GET /v1/users/<user>/devices` with the user credential `bearer` (default: junk, a new one each
    /// time) from `address` (`X-Forwarded-For`, through the trusted proxy), through `session` (whose timeout
    /// allows a whole webhook wait): the status, error code and Retry-After.
    static func junk(
        _ session: URLSession,
        port: Int,
        app: String,
        from address: String,
        bearer: String = "junk-\(UUID().uuidString)",
        user: String = "me"
    ) async throws -> (status: Int, code: String, retryAfter: Int?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/users/\(user)/devices")!)
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        request.setValue(app, forHTTPHeaderField: "X-PushRelay-App")
        request.setValue(address, forHTTPHeaderField: "X-Forwarded-For")
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        let error = TestResponse(status: http.statusCode, body: data).error
        let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap { Int($0) }
        return (http.statusCode, error?.code ?? "", retryAfter)
    }

    /// The flood's progress, shared by its clients: it goes on until stopped and at least a minimum sent.
    final class Flood: Sendable {
        private let state = Mutex((sent: 0, stopped: false, statuses: [Int: Int]()))

        /// The next request's index, or nil once stopped with `minimum` sent.
        func next(minimum: Int) -> Int? {
            state.withLock { state in
                guard !state.stopped || state.sent < minimum else { return nil }
                state.sent += 1
                return state.sent - 1
            }
        }

        func record(_ status: Int) { state.withLock { $0.statuses[status, default: 0] += 1 } }
        func stop() { state.withLock { $0.stopped = true } }
        var sent: Int { state.withLock { $0.sent } }
        var statuses: [Int: Int] { state.withLock { $0.statuses } }
    }
}

/// A Ditto auth webhook on 127.0.0.1 that answers after `delay`: `authenticate: true` with the user of a
/// token in `users`, `authenticate: false` for any other; it counts its calls by token.
final class SlowAuthWebhook: Sendable {
    /// The tokens asked about, shared with the server's handler.
    private final class Log: Sendable {
        let tokens = Mutex<[String]>([])
        /// Calls being answered now, and the most there were at once.
        let inFlight = Mutex((now: 0, most: 0))
    }

    private let server: HTTPServer
    private let log = Log()

    init(delay: Duration, users: [String: String]) throws {
        let log = self.log
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        // Every call comes from the relay's one address: more than 64 at once must not be closed at accept.
        configuration.maxConnectionsPerAddress = nil
        server = HTTPServer(
            configuration: configuration,
            handler: { request in
                let token = (try? JSONDecoder().decode([String: String].self, from: request.body))?["token"] ?? ""
                log.inFlight.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                log.tokens.withLock { $0.append(token) }
                try? await Task.sleep(for: delay)
                log.inFlight.withLock { $0.now -= 1 }
                let answer: [String: Any] =
                    users[token].map { ["authenticate": true, "userID": $0] }
                    ?? ["authenticate": false]
                return HTTPResponse(
                    status: 200,
                    headers: [("content-type", "application/json")],
                    body: try! JSONSerialization.data(withJSONObject: answer)
                )
            },
            logger: .disabled()
        )
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.port)/auth" }
    func calls(for token: String) -> Int { log.tokens.withLock { $0.filter { $0 == token }.count } }
    func calls(excluding token: String) -> Int { log.tokens.withLock { $0.filter { $0 != token }.count } }
    /// The most calls the webhook was answering at once.
    var mostInFlight: Int { log.inFlight.withLock { $0.most } }
    func shutdown() async { await server.shutdown() }
}
