import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import WebPushCore
import WebPushMock

/// Sends pushes to a mock Web Push service as an application server does, over real HTTP/2 through libcurl
/// (the relay's ``CurlMultiDriver``), building them with WebPushCore: RFC 8291 encryption and a VAPID JWT.
final class WebPushClient: Sendable {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../fixtures").standardized
    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    static let vapidKey = try! VAPIDKey.generate()
    static let otherKey = try! VAPIDKey.generate()
    static let subject = try! VAPIDSubject(validating: "mailto:ops@example.com")

    private let driver: CurlMultiDriver

    init() throws {
        driver = try CurlMultiDriver(
            options: CurlCommonOptions(
                connectTimeoutMs: 30_000,
                upkeepIntervalMs: nil,
                caFile: Self.fixture("tls/ca.pem")
            ),
            maxInFlight: 10,
            maxConnections: 2,
            idlePoll: .seconds(1),
            threadName: "webpush-test",
            responseHeaders: ["location", "retry-after", "www-authenticate", "content-type"],
            logger: .disabled()
        )
        driver.start()
    }

    func shutdown() async { await driver.shutdown() }

    /// The answer and its JSON body, if any.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]
    }

    /// POSTs `body` to `endpoint` with `headers` (`name: value` lines) as given.
    func post(_ endpoint: String, headers: [String], body: Data) async throws -> Answer {
        let response = try await driver.send(
            CurlRequest(
                url: endpoint,
                headers: headers,
                body: body,
                deadline: .now + .seconds(60),
                tokenSuffix: String(endpoint.suffix(6))
            )
        )
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return Answer(status: response.status, headers: response.headers, json: json)
    }

    /// A push's parts, each replaceable by a test.
    struct Push {
        var plaintext: Data
        var authorization: String?
        var headers: [String: String]
        var body: Data?
    }

    /// The `Authorization` value for `endpoint`: signed by `key` for `audience` (default the endpoint's origin)
    /// at `now`.
    static func authorization(
        for endpoint: String,
        key: VAPIDKey = vapidKey,
        audience: String? = nil,
        now: Date = Date(),
        lifetime: Int = 3600
    ) throws -> String {
        let origin = try PushEndpoint(validating: endpoint, allowingHTTP: true).origin
        return try key.authorization(audience: audience ?? origin, subject: subject, now: now, lifetime: lifetime)
            .headerValue
    }

    /// Sends `push` to `subscription`: encrypted for its keys unless `push.body` is given, with the VAPID
    /// header (default a valid one) and `push.headers` (default TTL, Content-Encoding, Urgency, Topic).
    func send(_ push: Push, to subscription: WebPushSubscription) async throws -> Answer {
        let keys = try subscription.validated(allowingHTTP: true).keys
        let body = try push.body ?? MessageEncryption.encrypt(push.plaintext, to: keys)
        var lines = push.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if let authorization = push.authorization { lines.append("Authorization: \(authorization)") }
        return try await post(subscription.endpoint, headers: lines, body: body)
    }

    /// A valid push of `payload` (JSON) to `subscription`.
    static func push(_ payload: [String: Any], to subscription: WebPushSubscription) throws -> Push {
        Push(
            plaintext: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
            authorization: try authorization(for: subscription.endpoint),
            headers: [
                "TTL": "3600", "Content-Encoding": "aes128gcm", "Urgency": "high",
                "Topic": Topic(messageId: "m-1").value,
            ],
            body: nil
        )
    }

    static var plainPayload: [String: Any] {
        [
            "title": "Ann in #general", "body": "hello from the web", "dittoChatRoomId": "room-1",
            "dittoChatMessageId": "m-1",
        ]
    }

    static var declarativePayload: [String: Any] {
        [
            "web_push": 8030,
            "notification": [
                "title": "Ann in #general", "body": "hello", "navigate": "https://chat.example.com/rooms/room-1",
                "data": ["dittoChatRoomId": "room-1"],
            ] as [String: Any],
        ]
    }
}
