import APNsMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing

/// `Idempotency-Key` on the webhooks, through the real relay (HTTP, SQLite file) and the mock APNs.
@Suite struct IdempotencyTests {
    static let path = "/v1/webhooks/did-send-message"

    /// A webhook body as fixed bytes (the key's fingerprint is of the raw body).
    static func body(_ text: String = "hi", messageId: String? = nil) -> Data {
        let id = messageId.map { #","messageId":"\#($0)""# } ?? ""
        return Data(#"{"roomId":"room-1","senderId":"alice","text":"\#(text)"\#(id)}"#.utf8)
    }

    /// Posts `body` to did-send-message (or did-send-image-message) with `Idempotency-Key: key` when given.
    static func post(
        _ harness: RelayHarness,
        _ body: Data = body(),
        key: String?,
        image: Bool = false,
        apiKey: String? = nil
    ) async throws -> APIResponse {
        try await harness.call(
            "POST",
            image ? "/v1/webhooks/did-send-image-message" : path,
            body: body,
            key: apiKey,
            headers: key.map { ["Idempotency-Key": $0] } ?? [:]
        )
    }

    /// The notification id of a 200 (replay) answer; nil for any other status.
    static func replayed(_ response: APIResponse) throws -> String? {
        response.status == 200 ? try response.decode(WebhookAnswer.self).notificationId : nil
    }

    /// Registers bob's device in room-1 of the first app; returns its token.
    static func bobsDevice(_ harness: RelayHarness, apiKey: String? = nil) async throws -> String {
        let token = randomToken()
        try await harness.register(token, user: "bob", rooms: ["room-1"], key: apiKey)
        return token
    }

    /// Sends a webhook without a key and waits until it is delivered: every push accepted before it has then
    /// reached the mock too.
    static func fence(_ harness: RelayHarness) async throws {
        let response = try await post(harness, body("fence \(UUID())"), key: nil)
        try #require(response.status == 202, "fence: \(response.status) \(response.text)")
        _ = try await harness.settled(try response.decode(WebhookAnswer.self).notificationId)
        // Its push may land before an earlier one's (several are in flight at once): wait for the outbox too.
        for _ in 0..<600 where try await harness.relay.store.pendingDeliveryCount() > 0 {
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(try await harness.relay.store.pendingDeliveryCount() == 0, "fence: deliveries still pending")
    }

    @Test func aReplayAnswers200WithTheFirstIdAndSendsNothingNew() async throws {
        try await withRelayAndMock { harness in
            let token = try await Self.bobsDevice(harness)
            let first = try await Self.post(harness, key: "3f0e2c1a-key")
            try #require(first.status == 202, "\(first.status) \(first.text)")
            let accepted = try first.decode(WebhookAnswer.self)
            #expect(accepted.devices == 1)
            _ = try await harness.settled(accepted.notificationId)
            // The bare key and the draft's quoted form name the same key.
            for form in ["3f0e2c1a-key", #""3f0e2c1a-key""#] {
                let replay = try await Self.post(harness, key: form)
                #expect(replay.status == 200, "\(form): \(replay.status) \(replay.text)")
                let answer = try replay.decode(WebhookAnswer.self)
                #expect(answer.notificationId == accepted.notificationId && answer.devices == 1)
            }
            try await Self.fence(harness)
            #expect(harness.requests(to: token).count == 2)
        }
    }

    @Test func theKeyWithAnotherRequestIs422AndStoresNothing() async throws {
        try await withRelayAndMock { harness in
            let token = try await Self.bobsDevice(harness)
            let first = try await Self.post(harness, key: "k-1")
            try #require(first.status == 202, "\(first.status) \(first.text)")
            let otherBody = Self.body("another text", messageId: "m-2")
            let otherImage = Data(#"{"roomId":"room-1","senderId":"alice","caption":"hi"}"#.utf8)
            for (body, image) in [(otherBody, false), (otherImage, true)] {
                let reused = try await Self.post(harness, body, key: "k-1", image: image)
                #expect(reused.status == 422, "\(reused.status) \(reused.text)")
                #expect(reused.error?.code == "idempotency_key_reused")
            }
            // Nothing of the refused call was stored: its messageId is free, and nothing more was sent.
            let fresh = try await Self.post(harness, otherBody, key: "k-2")
            #expect(fresh.status == 202, "\(fresh.status) \(fresh.text)")
            try await Self.fence(harness)
            #expect(harness.requests(to: token).count == 3)
        }
    }

    @Test func anotherAppWithTheSameKeyIsIndependent() async throws {
        try await withRelayAndMock(appCount: 2) { harness in
            let other = harness.apps[1].apiKey
            _ = try await Self.bobsDevice(harness)
            _ = try await Self.bobsDevice(harness, apiKey: other)
            let first = try await Self.post(harness, key: "shared")
            let second = try await Self.post(harness, key: "shared", apiKey: other)
            #expect(first.status == 202 && second.status == 202, "\(first.text) \(second.text)")
            let a = try first.decode(WebhookAnswer.self), b = try second.decode(WebhookAnswer.self)
            #expect(a.notificationId != b.notificationId && b.devices == 1)
            let replay = try await Self.post(harness, key: "shared", apiKey: other)
            #expect(try Self.replayed(replay) == b.notificationId)
        }
    }

    @Test func eachUserAndTheBackendHaveKeysOfTheirOwn() async throws {
        try await withRelayAndMock(configure: RelayHarness.withUserAuth) { harness in
            for user in ["alice", "carol"] { try await harness.join("room-1", user) }
            // Fixed bytes: the key's fingerprint is of the raw body.
            let message = Data(#"{"roomId":"room-1","text":"hi"}"#.utf8)
            func send(_ user: String) async throws -> APIResponse {
                try await harness.call(
                    "POST",
                    Self.path,
                    body: message,
                    key: try UserTokenIssuer.shared.token(for: user),
                    headers: ["X-PushRelay-App": harness.app.id, "Idempotency-Key": "same-key"]
                )
            }
            let alice = try await send("alice")
            let carol = try await send("carol")
            #expect(alice.status == 202 && carol.status == 202)
            let ids = try [alice, carol].map { try $0.decode(WebhookAnswer.self).notificationId }
            #expect(Set(ids).count == 2)
            let again = try await send("alice")
            #expect(try Self.replayed(again) == ids[0], "\(again.status) \(again.text)")
            let backend = try await Self.post(harness, key: "same-key")
            #expect(backend.status == 202)
        }
    }

    @Test func aKeyIsForgottenAfter24Hours() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(time: time) { harness in
            _ = try await Self.bobsDevice(harness)
            let first = try await Self.post(harness, key: "daily")
            try #require(first.status == 202, "\(first.status) \(first.text)")
            let firstId = try first.decode(WebhookAnswer.self).notificationId
            // Delivered before the clock moves, so no lease of it runs out under the jump.
            _ = try await harness.settled(firstId)
            time.advance(by: .seconds(24 * 3600 - 1))
            let replay = try await Self.post(harness, key: "daily")
            #expect(try Self.replayed(replay) == firstId)
            time.advance(by: .seconds(1))
            let later = try await Self.post(harness, key: "daily")
            #expect(later.status == 202, "\(later.status) \(later.text)")
            // A new notification with a delivery of its own. (Whether it reaches the mock is not asked: the
            // provider token made a day later on this clock is a new one, which the mock refuses within
            // 20 minutes of the last on its own clock.)
            let laterAnswer = try later.decode(WebhookAnswer.self)
            let laterId = laterAnswer.notificationId
            #expect(laterId != firstId && laterAnswer.devices == 1)
            #expect(try await harness.notification(laterId).deliveries.count == 1)
            let again = try await Self.post(harness, key: "daily")
            #expect(try Self.replayed(again) == laterId)
        }
    }

    @Test func aKeySurvivesARelayRestart() async throws {
        try await withRelayAndMock { harness in
            _ = try await Self.bobsDevice(harness)
            let first = try await Self.post(harness, key: "restart")
            try #require(first.status == 202, "\(first.status) \(first.text)")
            let id = try first.decode(WebhookAnswer.self).notificationId
            await harness.stopRelay()
            try await harness.startRelay()
            let replay = try await Self.post(harness, key: "restart")
            #expect(try Self.replayed(replay) == id)
            let other = try await Self.post(harness, Self.body("other"), key: "restart")
            #expect(other.status == 422, "\(other.status) \(other.text)")
        }
    }

    /// Both requests of each pair are in flight together; the unique index leaves one notification.
    @Test func twoConcurrentIdenticalRequestsSendOnce() async throws {
        try await withRelayAndMock { harness in
            let token = try await Self.bobsDevice(harness)
            let rounds = 5
            for round in 0..<rounds {
                let body = Self.body("round \(round)")
                async let a = Self.post(harness, body, key: "race-\(round)")
                async let b = Self.post(harness, body, key: "race-\(round)")
                let answers = try await [a, b]
                #expect(answers.map(\.status).sorted() == [200, 202], "\(answers.map(\.text))")
                let ids = try answers.map { try $0.decode(WebhookAnswer.self).notificationId }
                #expect(ids[0] == ids[1])
            }
            try await Self.fence(harness)
            #expect(harness.requests(to: token).count == rounds + 1)
        }
    }

    /// Header values that are not one key of 1...255 visible ASCII characters are refused before anything
    /// is stored: the body's messageId is still free afterwards.
    @Test func invalidKeysAre400() async throws {
        try await withRelayAndMock { harness in
            _ = try await Self.bobsDevice(harness)
            let body = Self.body(messageId: "m-invalid")
            let values = [
                String(repeating: "k", count: 256), #""\#(String(repeating: "k", count: 256))""#, "two words",
                "ключ", #""unterminated"#, #""a"b""#, #""bad\escape""#, #""""#, #""k";p=1"#, #""a b""#,
            ]
            for value in values {
                let response = try await Self.post(harness, body, key: value)
                #expect(response.status == 400, "\(value): \(response.status) \(response.text)")
                #expect(response.error?.code == "invalid_idempotency_key", "\(value): \(response.text)")
            }
            // What a client library may not send: an empty value, a tab, the header twice.
            for fields in [
                "Idempotency-Key: \r\n", "Idempotency-Key: a\tb\r\n",
                "Idempotency-Key: a\r\nIdempotency-Key: a\r\n", "Idempotency-Key: a\r\nidempotency-key: b\r\n",
            ] {
                let answer = try await harness.rawExchange(Self.rawRequest(harness, body: body, fields: fields))
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(fields.debugDescription): \(answer)")
                #expect(answer.contains("invalid_idempotency_key"), "\(fields.debugDescription): \(answer)")
            }
            // A control character in any field value is the HTTP server's refusal, before the key is read.
            let control = try await harness.rawExchange(
                Self.rawRequest(harness, body: body, fields: "Idempotency-Key: a\u{7F}b\r\n")
            )
            #expect(control.hasPrefix("HTTP/1.1 400") && control.contains("malformed_header"), "\(control)")
            let longest = try await Self.post(harness, body, key: String(repeating: "k", count: 255))
            #expect(longest.status == 202, "\(longest.status) \(longest.text)")
        }
    }

    /// A whole webhook request on the first app's key, with `fields` (each ending in CRLF) among its headers.
    static func rawRequest(_ harness: RelayHarness, body: Data, fields: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(harness.app.apiKey)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
            + fields + "\r\n" + String(decoding: body, as: UTF8.self)
    }
}
