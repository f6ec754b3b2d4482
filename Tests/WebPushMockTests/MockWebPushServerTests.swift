import Foundation
import RelayCore
import RelayCrypto
import Testing
import WebPushCore
import WebPushMock

/// The mock Web Push service's checks and answers, driven over TLS HTTP/2 through libcurl, in-process on
/// port 0.
@Suite struct MockWebPushServerTests {
    static func start(
        tls: Bool = true,
        subscriptionsDirectory: String? = nil,
        recordFile: String? = nil,
        script: MockWebPushScript = MockWebPushScript()
    ) throws -> MockWebPushServer {
        let server = MockWebPushServer(
            configuration: MockWebPushConfiguration(
                tls: tls
                    ? .init(
                        certificatePath: WebPushClient.fixture("tls/server.pem"),
                        privateKeyPath: WebPushClient.fixture("tls/server.key")
                    ) : nil,
                subscriptionsDirectory: subscriptionsDirectory,
                recordFile: recordFile,
                script: script
            )
        )
        try server.start()
        return server
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func anAcceptedPushIsDecryptedAndRecordedWithItsPayload() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recordFile = directory.appendingPathComponent("record.jsonl").path
        let server = try Self.start(recordFile: recordFile)
        defer { server.stop() }
        let client = try WebPushClient()
        let subscription = try server.newSubscription()
        #expect(subscription.endpoint.hasPrefix(server.baseURL + "/push/"))
        let push = try WebPushClient.push(WebPushClient.plainPayload, to: subscription)
        let answer = try await client.send(push, to: subscription)
        await client.shutdown()

        #expect(answer.status == 201)
        #expect(answer.headers["location"]?.hasPrefix(server.baseURL + "/message/") == true)
        let records = try await server.waitForRequests(count: 1, timeout: .seconds(60))
        let record = try #require(records.first)
        #expect(record.status == 201)
        #expect(record.endpointId == MockWebPushServer.endpointId(of: subscription.endpoint))
        #expect(record.reason == nil)
        #expect(record.ttl == 3600)
        #expect(record.urgency == "high")
        #expect(record.topic == Topic(messageId: "m-1").value)
        #expect(record.vapidSubject == "mailto:ops@example.com")
        #expect(record.vapidAudience == server.baseURL)
        #expect(record.vapidKey == WebPushClient.vapidKey.publicKeyBase64URL)
        #expect(record.shape == "plain")
        #expect(record.location == answer.headers["location"])
        guard case .object(let payload) = try #require(record.payload) else {
            Issue.record("the payload is not an object")
            return
        }
        #expect(payload["body"] == .string("hello from the web"))
        #expect(payload["dittoChatRoomId"] == .string("room-1"))

        // The record file has the same push, its payload an object.
        let line = try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n").first
        let object = try JSONSerialization.jsonObject(with: Data(try #require(line).utf8)) as? [String: Any]
        let written = try #require(object?["payload"] as? [String: Any])
        #expect(written["title"] as? String == "Ann in #general")
        #expect(!(line ?? "").contains(subscription.keys.auth))
        #expect(!(line ?? "").contains(subscription.endpoint))
    }

    @Test func aDeclarativeWebPushMessageIsAccepted() async throws {
        let server = try Self.start(tls: false)
        defer { server.stop() }
        let client = try WebPushClient()
        let subscription = try server.newSubscription()
        #expect(subscription.endpoint.hasPrefix("http://127.0.0.1:"))
        let answer = try await client.send(
            try WebPushClient.push(WebPushClient.declarativePayload, to: subscription),
            to: subscription
        )
        await client.shutdown()
        #expect(answer.status == 201)
        let record = try #require(try await server.waitForRequests(count: 1, timeout: .seconds(60)).first)
        #expect(record.shape == "declarative")
        guard case .object(let payload) = record.payload, case .object(let notification) = payload["notification"]
        else {
            Issue.record("no notification in \(String(describing: record.payload))")
            return
        }
        #expect(payload["web_push"] == .number(8030))
        #expect(notification["navigate"] == .string("https://chat.example.com/rooms/room-1"))
    }

    /// One way a push is refused: what is changed, and the status and errno answered.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var errno: Int
        /// A part of the error body's message.
        var says: String
        var testDescription: String { "\(name) → \(status)" }
    }

    static let refusals: [Refusal] = [
        .init(name: "no VAPID", status: 401, errno: 109, says: "Missing Authorization"),
        .init(name: "malformed VAPID", status: 401, errno: 109, says: "vapid scheme"),
        .init(name: "bad signature", status: 403, errno: 109, says: "signature does not verify"),
        .init(name: "wrong aud", status: 403, errno: 109, says: "aud is 'https://push.example.net'"),
        .init(name: "expired", status: 403, errno: 109, says: "exp is missing or past"),
        .init(name: "no sub", status: 403, errno: 109, says: "no sub"),
        .init(name: "another applicationServerKey", status: 403, errno: 109, says: "applicationServerKey"),
        .init(name: "missing TTL", status: 400, errno: 111, says: "Missing TTL"),
        .init(name: "negative TTL", status: 400, errno: 112, says: "TTL must be"),
        .init(name: "bad Urgency", status: 400, errno: 112, says: "Urgency must be"),
        .init(name: "long Topic", status: 400, errno: 112, says: "Topic must be"),
        .init(name: "wrong encoding", status: 415, errno: 110, says: "aes128gcm"),
        .init(name: "oversized", status: 413, errno: 104, says: "5000 bytes"),
        .init(name: "undecryptable", status: 400, errno: 110, says: "does not decrypt"),
        .init(name: "bad shape", status: 400, errno: 110, says: "dittoChatRoomId"),
        .init(name: "not JSON", status: 400, errno: 110, says: "not a JSON object"),
        .init(name: "declarative without navigate", status: 400, errno: 110, says: "navigate"),
        .init(name: "unknown id", status: 404, errno: 102, says: "no subscription"),
        .init(name: "id of another form", status: 404, errno: 102, says: "no subscription"),
    ]

    /// A VAPID header whose JWT has `aud` and `exp` right and `sub` as given, signed with the client's key.
    static func authorization(endpoint: String, sub: String?) throws -> String {
        struct Claims: Encodable {
            var aud: String
            var exp: Int
            var sub: String?
        }
        let origin = try PushEndpoint(validating: endpoint, allowingHTTP: true).origin
        let claims = Claims(aud: origin, exp: Int(Date().timeIntervalSince1970) + 600, sub: sub)
        let signer = try ES256Key(privateKeyPEM: WebPushClient.vapidKey.privateKeyPEM)
        let jws = try CompactJWS.sign(header: ["typ": "JWT", "alg": "ES256"], payload: claims) {
            (input) throws(CryptoError) in try signer.sign(input)
        }
        return "vapid t=\(jws.compact), k=\(WebPushClient.vapidKey.publicKeyBase64URL)"
    }

    @Test(arguments: refusals)
    func aPushIsRefusedAsAPushServiceRefusesIt(refusal: Refusal) async throws {
        let server = try Self.start()
        defer { server.stop() }
        let client = try WebPushClient()
        var subscription = try server.newSubscription()
        var push = try WebPushClient.push(WebPushClient.plainPayload, to: subscription)
        let endpoint = subscription.endpoint
        switch refusal.name {
        case "no VAPID": push.authorization = nil
        case "malformed VAPID": push.authorization = "WebPush abc"
        case "bad signature":
            // The token of one key with another key's k.
            let token = try VAPIDAuthorization(parsing: try WebPushClient.authorization(for: endpoint)).token
            push.authorization = "vapid t=\(token), k=\(WebPushClient.otherKey.publicKeyBase64URL)"
        case "wrong aud":
            push.authorization = try WebPushClient.authorization(for: endpoint, audience: "https://push.example.net")
        case "expired":
            push.authorization = try WebPushClient.authorization(
                for: endpoint,
                now: Date().addingTimeInterval(-7200),
                lifetime: 60
            )
        case "no sub":
            push.authorization = try Self.authorization(endpoint: endpoint, sub: nil)
        case "another applicationServerKey":
            subscription = try server.newSubscription(
                applicationServerKey: WebPushClient.otherKey.publicKeyBase64URL
            )
            push.authorization = try WebPushClient.authorization(for: subscription.endpoint)
        case "missing TTL": push.headers["TTL"] = nil
        case "negative TTL": push.headers["TTL"] = "-1"
        case "bad Urgency": push.headers["Urgency"] = "urgent"
        case "long Topic": push.headers["Topic"] = String(repeating: "t", count: 33)
        case "wrong encoding": push.headers["Content-Encoding"] = "aesgcm"
        case "oversized": push.body = Data(repeating: 7, count: 5000)
        case "undecryptable":
            let other = try server.newSubscription()
            push.body = try MessageEncryption.encrypt(push.plaintext, to: try other.validated(allowingHTTP: true).keys)
        case "bad shape":
            push.plaintext = Data(#"{"title":"t","body":"b"}"#.utf8)
        case "not JSON": push.plaintext = Data("hello".utf8)
        case "declarative without navigate":
            push.plaintext = Data(#"{"web_push":8030,"notification":{"title":"t"}}"#.utf8)
        case "id of another form":
            subscription.endpoint = server.baseURL + "/push/..%2F..%2Fetc%2Fpasswd"
            push.authorization = try WebPushClient.authorization(for: subscription.endpoint)
        case "unknown id":
            subscription.endpoint = server.baseURL + "/push/unknownSubscriptionId"
            push.authorization = try WebPushClient.authorization(for: subscription.endpoint)
        default: Issue.record("no case for \(refusal.name)")
        }
        let answer = try await client.send(push, to: subscription)
        await client.shutdown()

        #expect(answer.status == refusal.status)
        #expect(answer.json["code"] as? Int == refusal.status)
        #expect(answer.json["errno"] as? Int == refusal.errno)
        #expect((answer.json["error"] as? String)?.isEmpty == false)
        let message = try #require(answer.json["message"] as? String)
        #expect(message.contains(refusal.says), "\(message)")
        if refusal.status == 401 { #expect(answer.headers["www-authenticate"] == "vapid") }
        let record = try #require(try await server.waitForRequests(count: 1, timeout: .seconds(60)).first)
        #expect(record.status == refusal.status)
        #expect(record.reason == message)
        #expect(record.payload == nil)
    }

    @Test func theScriptAnswersAnEndpointWithRetryAfterForItsCountThenFallsThrough() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let client = try WebPushClient()
        let throttled = try server.newSubscription()
        let gone = try server.newSubscription()
        let throttledId = try #require(MockWebPushServer.endpointId(of: throttled.endpoint))
        let goneId = try #require(MockWebPushServer.endpointId(of: gone.endpoint))
        server.script = try MockWebPushScript(
            json: Data(
                """
                {"endpoints": [
                  {"id": "\(throttledId)", "status": 429, "retryAfter": 30, "count": 1},
                  {"id": "\(goneId)", "status": 410},
                  {"id": "*", "status": 503, "retryAfter": 5, "message": "maintenance", "count": 1}
                ]}
                """.utf8
            )
        )
        let first = try await client.send(
            try WebPushClient.push(WebPushClient.plainPayload, to: throttled),
            to: throttled
        )
        let second = try await client.send(
            try WebPushClient.push(WebPushClient.plainPayload, to: throttled),
            to: throttled
        )
        let third = try await client.send(try WebPushClient.push(WebPushClient.plainPayload, to: gone), to: gone)
        await client.shutdown()

        #expect(first.status == 429)
        #expect(first.headers["retry-after"] == "30")
        #expect(first.json["errno"] as? Int == 201)
        // Its one 429 used, the push falls through to the "*" rule's one 503.
        #expect(second.status == 503)
        #expect(second.headers["retry-after"] == "5")
        #expect(second.json["message"] as? String == "maintenance")
        #expect(third.status == 410)
        #expect(third.json["errno"] as? Int == 103)
        #expect(third.headers["retry-after"] == nil)
        let records = try await server.waitForRequests(count: 3, timeout: .seconds(60))
        #expect(records.map(\.status) == [429, 503, 410])
        // A scripted answer still opened the message: what was sent is recorded.
        #expect(records.allSatisfy { $0.payload != nil && $0.location == nil })
    }

    @Test func aScriptWithAStatusNoPushServiceAnswersIsRefused() throws {
        #expect(throws: MockWebPushError.self) {
            try MockWebPushScript(json: Data(#"{"endpoints": [{"id": "*", "status": 302}]}"#.utf8))
        }
    }

    /// The example the docs point to is a script the mock reads.
    @Test func theFixtureScriptIsRead() throws {
        let script = try MockWebPushScript(
            contentsOf: URL(fileURLWithPath: WebPushClient.fixture("webpush/mock-script.json"))
        )
        #expect(script.endpoints.first { $0.id == "gone-subscription" }?.status == 410)
        #expect(script.endpoints.count == 6)
    }

    @Test func subscriptionsMadeByOneServerAreOpenedByAnotherThroughTheDirectory() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serving = try Self.start(subscriptionsDirectory: directory.path)
        defer { serving.stop() }
        // Another instance, never started, makes the subscription for the serving one's URL.
        let maker = MockWebPushServer(configuration: .init(subscriptionsDirectory: directory.path))
        let subscription = try maker.newSubscription(
            baseURL: serving.baseURL,
            applicationServerKey: WebPushClient.vapidKey.publicKeyBase64URL
        )
        let id = try #require(MockWebPushServer.endpointId(of: subscription.endpoint))
        let file = directory.appendingPathComponent("\(id).json").path
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("BEGIN PRIVATE KEY"))

        let client = try WebPushClient()
        let answer = try await client.send(
            try WebPushClient.push(WebPushClient.plainPayload, to: subscription),
            to: subscription
        )
        // The restriction to the application server key came through the file too.
        var otherSigner = try WebPushClient.push(WebPushClient.plainPayload, to: subscription)
        otherSigner.authorization = try WebPushClient.authorization(
            for: subscription.endpoint,
            key: WebPushClient.otherKey
        )
        let refused = try await client.send(otherSigner, to: subscription)
        await client.shutdown()
        #expect(answer.status == 201)
        #expect(refused.status == 403)
        let records = try await serving.waitForRequests(count: 2, timeout: .seconds(60))
        #expect(records.map(\.endpointId) == [id, id])
        #expect(records.first?.payload != nil)
    }

    /// Subscriptions made in bulk share key pairs but not endpoints; each is its own file (mode 0600), and a
    /// serving mock opens pushes to every one of them.
    @Test func subscriptionsMadeInBulkShareKeyPairsAndAreEachOpened() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serving = try Self.start(subscriptionsDirectory: directory.path)
        defer { serving.stop() }
        let maker = MockWebPushServer(configuration: .init(subscriptionsDirectory: directory.path))
        let made = try maker.newSubscriptions(count: 5, keyPairs: 2, baseURL: serving.baseURL)
        #expect(Set(made.map(\.endpoint)).count == 5)
        #expect(Set(made.map(\.keys.p256dh)).count == 2)
        #expect(made[0].keys == made[2].keys && made[0].keys != made[1].keys)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 5)
        for file in files {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(file).path
            )
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
        #expect(throws: MockWebPushError.self) { try maker.newSubscriptions(count: 1, keyPairs: 0) }

        let client = try WebPushClient()
        var statuses: [Int] = []
        for subscription in made {
            let push = try WebPushClient.push(WebPushClient.plainPayload, to: subscription)
            statuses.append(try await client.send(push, to: subscription).status)
        }
        await client.shutdown()
        #expect(statuses == Array(repeating: 201, count: 5))
        let records = try await serving.waitForRequests(count: 5, timeout: .seconds(60))
        #expect(records.map(\.endpointId) == made.map { MockWebPushServer.endpointId(of: $0.endpoint) })
        #expect(records.allSatisfy { $0.payload != nil })
    }
}
