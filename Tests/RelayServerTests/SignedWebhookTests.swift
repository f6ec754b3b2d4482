import APNsMock
import Foundation
import RelayCrypto
import Testing

/// Issue 4: an app with `webhookSecret` accepts only webhooks signed with it (docs/configuration.md,
/// "Signed webhooks").
@Suite struct SignedWebhookTests {
    static let secret = "s3cret-for-signed-webhooks-0123456789"

    /// The raw JSON body of a `did-send-message` webhook.
    static func body(room: String, messageId: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "roomId": room, "senderId": "sender", "text": "signed \(messageId)", "messageId": messageId,
        ])
    }

    @Test func onlyCorrectlySignedWebhooksAreAcceptedAndTheRefusedSendNothing() async throws {
        try await withRelayAndMock(
            appCount: 2,
            configure: { $0.apps[0].webhookSecret = Self.secret }
        ) { relay in
            let room = "room-signed"
            let tokens = [randomToken(), randomToken()]
            for (index, token) in tokens.enumerated() {
                try await relay.register(token, user: "u\(index)", rooms: [room])
            }
            let now = Int(Date().timeIntervalSince1970)

            let good = try Self.body(room: room, messageId: "sig-good")
            let accepted = try await relay.signedWebhook(
                good,
                signature: WebhookSignature.sign(good, secret: Self.secret, timestamp: now)
            )
            #expect(accepted.status == 202, "\(accepted.text)")
            let first = try accepted.decode(WebhookAnswer.self)
            #expect(first.devices == 2)

            // Each refused case carries its own message id: had any been accepted, it would be sent.
            var refused: [(name: String, messageId: String, signature: String?)] = []
            func refuse(_ name: String, _ signature: (Data) -> String?) throws {
                let messageId = "sig-bad-\(refused.count)"
                refused.append((name, messageId, signature(try Self.body(room: room, messageId: messageId))))
            }
            try refuse("wrong secret") {
                WebhookSignature.sign($0, secret: "another-secret-0123456789", timestamp: now)
            }
            try refuse("stale t") { WebhookSignature.sign($0, secret: Self.secret, timestamp: now - 301 - 60) }
            try refuse("future t") { WebhookSignature.sign($0, secret: Self.secret, timestamp: now + 301 + 60) }
            try refuse("signature of another body") { _ in
                WebhookSignature.sign(good, secret: Self.secret, timestamp: now)
            }
            try refuse("malformed: no t") {
                let signed = WebhookSignature.sign($0, secret: Self.secret, timestamp: now)
                return String(signed.drop { $0 != "," }.dropFirst())
            }
            try refuse("malformed: not hex") { _ in "t=\(now),v1=not-hex-at-all" }
            try refuse("malformed: garbage") { _ in "garbage" }
            try refuse("missing") { _ in nil }
            for (name, messageId, signature) in refused {
                let response = try await relay.signedWebhook(
                    try Self.body(room: room, messageId: messageId),
                    signature: signature
                )
                #expect(response.status == 401, "\(name): \(response.status) \(response.text)")
                #expect(response.error?.code == "invalid_signature", "\(name): \(response.text)")
            }

            // The second app has no secret: unsigned webhooks are accepted there.
            let otherToken = randomToken()
            let other = relay.apps[1]
            try await relay.register(otherToken, user: "other", rooms: [room], key: other.apiKey)
            let unsigned = try await relay.webhook(
                ["roomId": room, "senderId": "sender", "text": "unsigned", "messageId": "sig-unsigned"],
                key: other.apiKey
            )
            #expect(unsigned.devices == 1)

            // Barrier: a later valid webhook; once it settled, anything a refused one queued was sent before.
            let barrierBody = try Self.body(room: room, messageId: "sig-barrier")
            let barrier = try await relay.signedWebhook(
                barrierBody,
                signature: WebhookSignature.sign(barrierBody, secret: Self.secret, timestamp: now)
            )
            #expect(barrier.status == 202, "\(barrier.text)")
            let barrierAnswer = try barrier.decode(WebhookAnswer.self)
            for id in [first.notificationId, barrierAnswer.notificationId] {
                let view = try await relay.settled(id)
                #expect(view.counts.sent == 2 && view.deliveries.count == 2)
            }
            _ = try await relay.settled(unsigned.notificationId, key: other.apiKey)

            for token in tokens {
                let sent = relay.requests(to: token).compactMap { $0.header("apns-collapse-id") }
                #expect(sent.sorted() == ["dittochat-msg-sig-barrier", "dittochat-msg-sig-good"])
            }
            #expect(
                relay.requests(to: otherToken).compactMap { $0.header("apns-collapse-id") } == [
                    "dittochat-msg-sig-unsigned"
                ]
            )
            let refusedIds = Set(refused.map { "dittochat-msg-" + $0.messageId })
            #expect(!relay.mock.requests.contains { refusedIds.contains($0.header("apns-collapse-id") ?? "") })
            #expect(relay.mock.requests.count == 5)
        }
    }
}

extension SignedWebhookTests {
    /// During a rotation a webhook signed with a previous secret is accepted as one signed with the current
    /// one; a secret the app never had is still refused.
    @Test func aPreviousSecretSignsDuringARotation() async throws {
        let previous = "the-old-secret-of-this-app-0123"
        try await withRelayAndMock(configure: {
            $0.apps[0].webhookSecret = Self.secret
            $0.apps[0].previousWebhookSecrets = [previous]
        }) { relay in
            let room = "room-rotation"
            try await relay.register(randomToken(), user: "u", rooms: [room])
            let now = Int(Date().timeIntervalSince1970)
            for (secret, messageId, status) in [
                (previous, "rot-old", 202), (Self.secret, "rot-new", 202),
                ("never-this-apps-secret-0123", "rot-x", 401),
            ] {
                let body = try Self.body(room: room, messageId: messageId)
                let answer = try await relay.signedWebhook(
                    body,
                    signature: WebhookSignature.sign(body, secret: secret, timestamp: now)
                )
                #expect(answer.status == status, "\(messageId): \(answer.text)")
            }
        }
    }

    /// A signed webhook without a message id, replayed within the signature's window (its header written
    /// otherwise, or with an `Idempotency-Key` of its own), is answered from the first and sends nothing more;
    /// the same body signed anew is a new message. Two signature headers are refused, whichever comes first.
    @Test func aReplayedSignatureSendsOnceAndTwoSignaturesAreRefused() async throws {
        try await withRelayAndMock(configure: { $0.apps[0].webhookSecret = Self.secret }) { relay in
            let room = "room-replay"
            let token = randomToken()
            try await relay.register(token, user: "u", rooms: [room])
            let body = try JSONSerialization.data(withJSONObject: [
                "roomId": room, "senderId": "sender", "text": "no message id",
            ])
            let now = Int(Date().timeIntervalSince1970)
            let signature = WebhookSignature.sign(body, secret: Self.secret, timestamp: now)
            let first = try await relay.signedWebhook(body, signature: signature)
            #expect(first.status == 202, "\(first.text)")
            let firstId = try first.decode(WebhookAnswer.self).notificationId
            // The same signature, written otherwise: a bogus v1 entry added, spaces, the entries swapped.
            let v1 = String(signature.drop { $0 != "," }.dropFirst())
            for header in [signature, "v1=00,\(signature)", "\(v1) , t=\(now)"] {
                let replay = try await relay.signedWebhook(body, signature: header)
                #expect(replay.status == 200, "\(replay.text)")
                #expect(try replay.decode(WebhookAnswer.self).notificationId == firstId)
            }
            // Nor does an Idempotency-Key, which the signature does not cover, make a replay a new request.
            for key in ["fresh-key-1", "fresh-key-2"] {
                let keyed = try await relay.call(
                    "POST",
                    "/v1/webhooks/did-send-message",
                    body: body,
                    headers: [WebhookSignature.header: signature, "Idempotency-Key": key]
                )
                #expect(keyed.status == 200, "\(keyed.text)")
                #expect(try keyed.decode(WebhookAnswer.self).notificationId == firstId)
            }
            let resigned = try await relay.signedWebhook(
                body,
                signature: WebhookSignature.sign(body, secret: Self.secret, timestamp: now - 1)
            )
            #expect(resigned.status == 202, "\(resigned.text)")
            let secondId = try resigned.decode(WebhookAnswer.self).notificationId
            #expect(secondId != firstId)

            let text = String(decoding: body, as: UTF8.self)
            for order in [[signature, "t=\(now),v1=00"], ["t=\(now),v1=00", signature]] {
                let twice = try await relay.rawExchange(
                    "POST /v1/webhooks/did-send-message HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(relay.app.apiKey)\r\n"
                        + order.map { "\(WebhookSignature.header): \($0)\r\n" }.joined()
                        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n\(text)"
                )
                #expect(twice.hasPrefix("HTTP/1.1 400") && twice.contains("conflicting_headers"), "\(twice)")
            }
            for id in [firstId, secondId] { _ = try await relay.settled(id) }
            #expect(relay.requests(to: token).count == 2)
        }
    }
}

extension RelayHarness {
    /// `POST /v1/webhooks/did-send-message` with exactly `body` and, when given, `X-PushRelay-Signature`.
    func signedWebhook(_ body: Data, signature: String?, key: String? = nil) async throws -> APIResponse {
        var headers: [String: String] = [:]
        if let signature { headers[WebhookSignature.header] = signature }
        return try await call("POST", "/v1/webhooks/did-send-message", body: body, key: key, headers: headers)
    }
}
