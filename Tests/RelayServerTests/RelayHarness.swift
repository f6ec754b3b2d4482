import APNsMock
import FCMMock
import Foundation
import RelayCore
import RelayCrypto
import RelayServer
import RelayStore
import RelayTestSupport
import Testing

/// A real relay (HTTP on 127.0.0.1 port 0, SQLite file in a temporary directory) sending to a real mock APNs
/// over TLS that trusts the relay's generated provider key.
final class RelayHarness: Sendable {
    let mock: MockAPNsServer
    /// The mock FCM the apps' Android pushes go to.
    let fcm: MockFCMServer
    let apps: [TestApp]
    /// The public half of the provider key the relay signs with.
    let providerKey: ES256Key
    let directory: URL
    let configuration: Configuration
    /// The relay's and its store's clock.
    let time: any TimeSource
    /// The relay under test (live on a socket unless the harness was made with another mode), its store
    /// the configuration's.
    let testRelay: TestRelay

    init(bed: RelayTestBed, time: any TimeSource = SystemTimeSource(), mode: TestRelay.Mode = .live) {
        mock = bed.mock
        fcm = bed.fcm
        apps = bed.apps
        providerKey = bed.providerKey
        directory = bed.directory
        configuration = bed.configuration
        self.time = time
        testRelay = bed.testRelay(mode: mode, options: .init(time: time, gaugeInterval: .milliseconds(500)))
    }

    /// The first app.
    var app: TestApp { apps[0] }

    /// The running relay.
    var relay: Relay { get throws { try testRelay.relay } }

    /// Opens the store on the harness's database and starts a new relay on it.
    func startRelay() async throws { try await testRelay.start() }

    /// Graceful shutdown of the running relay (if any); its store is released.
    func stopRelay() async { await testRelay.stop() }

    // MARK: HTTP

    /// Sends one request to the relay with `Authorization: Bearer <key>` (default: the first app's key;
    /// `authorize: false` sends no Authorization). `headers` are set last and win.
    func call(
        _ method: String,
        _ path: String,
        json: Any? = nil,
        body: Data? = nil,
        key: String? = nil,
        authorize: Bool = true,
        headers: [String: String] = [:]
    ) async throws -> APIResponse {
        try await testRelay.call(
            method,
            path,
            json: json,
            body: body,
            bearer: authorize ? (key ?? app.apiKey) : nil,
            headers: headers
        )
    }

    /// `GET path` on the relay's admin listener (`http.admin`), without a key.
    func adminCall(_ path: String) async throws -> APIResponse {
        try await testRelay.adminCall(path)
    }

    /// `POST /v1/devices`; returns the response.
    @discardableResult
    func register(
        _ token: String,
        user: String,
        rooms: [String]? = nil,
        environment: String? = nil,
        platform: String? = nil,
        key: String? = nil
    ) async throws -> APIResponse {
        var body: [String: Any] = ["token": token, "userId": user]
        if let rooms { body["rooms"] = rooms }
        if let environment { body["environment"] = environment }
        if let platform { body["platform"] = platform }
        let response = try await call("POST", "/v1/devices", json: body, key: key)
        try #require([200, 201].contains(response.status), "register: \(response.status) \(response.text)")
        return response
    }

    /// `PUT /v1/rooms/{room}/members/{user}`, expecting 204.
    func join(_ room: String, _ user: String, key: String? = nil) async throws {
        let response = try await call("PUT", "/v1/rooms/\(room)/members/\(user)", key: key)
        try #require(response.status == 204, "join: \(response.status) \(response.text)")
    }

    /// Posts a webhook (`did-send-message` or `did-send-image-message`) and decodes the answer.
    func webhook(
        _ body: [String: Any],
        image: Bool = false,
        key: String? = nil,
        expectStatus: Int = 202
    ) async throws -> WebhookAnswer {
        let path = image ? "/v1/webhooks/did-send-image-message" : "/v1/webhooks/did-send-message"
        let response = try await call("POST", path, json: body, key: key)
        try #require(response.status == expectStatus, "webhook: \(response.status) \(response.text)")
        return try response.decode(WebhookAnswer.self)
    }

    /// `GET /v1/notifications/{id}` with `query` (`?offset=2&limit=2`).
    func notification(_ id: String, query: String = "", key: String? = nil) async throws -> NotificationJSON {
        let response = try await call("GET", "/v1/notifications/\(id)\(query)", key: key)
        try #require(response.status == 200, "notification: \(response.status) \(response.text)")
        return try response.decode(NotificationJSON.self)
    }

    /// Polls `GET /v1/notifications/{id}` until no delivery is pending; fails after `timeout`.
    func settled(_ id: String, key: String? = nil, timeout: Duration = .seconds(90)) async throws -> NotificationJSON {
        try await testRelay.settled(id, bearer: key ?? app.apiKey, timeout: timeout).decode(NotificationJSON.self)
    }

    /// `GET /v1/users/{user}/devices`.
    func devices(of user: String, key: String? = nil) async throws -> [DeviceJSON] {
        let response = try await call("GET", "/v1/users/\(user)/devices", key: key)
        try #require(response.status == 200, "devices: \(response.status) \(response.text)")
        return try response.decode(DeviceListJSON.self).devices
    }

    /// Requests the mock answered for `token` (lowercase hex).
    func requests(to token: String) -> [RecordedRequest] {
        mock.requests.filter { $0.deviceToken == token }
    }
}

/// A random 32-byte device token, lowercase hex.
func randomToken() -> String {
    (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}

/// One answer of the relay under test.
typealias APIResponse = TestResponse

struct WebhookAnswer: Decodable {
    var notificationId: String
    var devices: Int
}

struct DeviceJSON: Decodable {
    var token: String
    var platform: String
    var userId: String
    /// iOS devices only.
    var environment: String?
    var state: String
}

struct DeviceListJSON: Decodable {
    var devices: [DeviceJSON]
}

struct NotificationJSON: Decodable {
    struct Counts: Decodable {
        var pending: Int
        var sent: Int
        var failed: Int
        var retired: Int
        var cancelled: Int
    }
    struct Delivery: Decodable {
        var tokenSuffix: String
        var status: String
        var pushId: String
        var apnsId: String?
        var attempts: Int
        var lastStatus: Int?
        var lastReason: String?
    }
    var notificationId: String
    var roomId: String
    var senderId: String
    var messageId: String?
    var counts: Counts
    var deliveries: [Delivery]
    var nextOffset: Int?

    func delivery(for token: String) -> Delivery? { deliveries.first { token.hasSuffix($0.tokenSuffix) } }
}

/// Starts a mock APNs over TLS and a relay with `appCount` apps sending to it (on the clock `time`, run as
/// `mode`), runs `body`, and always shuts both down (also when `body` throws) and removes the temporary
/// directory.
func withRelayAndMock(
    appCount: Int = 1,
    script: MockScript = MockScript(),
    time: any TimeSource = SystemTimeSource(),
    mode: TestRelay.Mode = .live,
    configure: (inout Configuration) -> Void = { _ in },
    _ body: (RelayHarness) async throws -> Void
) async throws {
    try await withRelayTestBed(appCount: appCount, script: script, configure: configure) { bed in
        let harness = RelayHarness(bed: bed, time: time, mode: mode)
        try await harness.testRelay.run { try await body(harness) }
    }
}

extension RelayHarness {
    /// Sends `head` (request line and headers, ending in an empty line) on a plain TCP connection without a
    /// body and reads until the server closes or 10 s pass: for a request whose announced body is over the
    /// limit, which the server refuses before the body is sent (URLSession would fail writing it).
    /// Blocking socket calls run on a Dispatch thread, not Swift's cooperative pool.
    func rawExchange(_ head: String) async throws -> String {
        let port = try testRelay.port
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: RelayTestSupport.rawExchange(port: port, head))
            }
        }
    }
}
