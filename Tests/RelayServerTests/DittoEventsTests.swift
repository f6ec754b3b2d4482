import APNsMock
import Foundation
import RelayCore
import RelayCrypto
import Testing

/// `POST /v1/ditto/events` end to end: a real relay with a real SQLite file pushing to the mock APNs.
@Suite struct DittoEventsTests {
    static let secret = "ingest-secret-0123456789"

    /// Gives the first app `apps[].ditto` with the ingest secret and `maxBodyBytes`.
    static func withDitto(maxBodyBytes: Int? = nil) -> (inout Configuration) -> Void {
        { configuration in
            configuration.apps[0].ditto = Configuration.Ditto(
                ingestSecretSHA256: [Digest.sha256(Data(secret.utf8)).hexString],
                maxBodyBytes: maxBodyBytes
            )
        }
    }

    /// A DM room of alice and bob, both users, and alice's message `id` written `age` seconds ago.
    /// `padding` bytes of filler go in the room document.
    static func events(messageId id: String, age: TimeInterval = 5, padding: Int = 0) -> [[String: Any]] {
        let createdOn = Timestamp.rfc3339(Date().addingTimeInterval(-age))
        func upsert(_ txn: Int, _ collection: String, _ document: [String: Any]) -> [String: Any] {
            [
                "txnId": txn, "type": "documentChanged", "collection": collection,
                "change": ["method": "upsert", "oldValue": NSNull(), "newValue": document],
            ]
        }
        return [
            upsert(
                1,
                "dm_rooms",
                [
                    "_id": "dm-1", "name": "Alice & Bob", "participants": ["alice", "bob"],
                    "padding": String(repeating: "x", count: padding),
                ]
            ),
            upsert(2, "users", ["_id": "alice", "name": "Alice", "subscriptions": [String: Any]()]),
            upsert(3, "users", ["_id": "bob", "name": "Bob", "subscriptions": ["dm-1": NSNull()]]),
            upsert(
                4,
                "dm_messages",
                ["_id": id, "roomId": "dm-1", "userId": "alice", "text": "lunch?", "createdOn": createdOn]
            ),
        ]
    }

    struct Answer: Decodable, Equatable {
        var applied: Int
        var duplicates: Int
        var ignored: Int
        var notifications: Int
    }

    @Test func eventsBecomeOnePushWithTheSDKsIdentifierAndAReplayPushesNothing() async throws {
        try await withRelayAndMock(configure: Self.withDitto()) { relay in
            let phone = randomToken()
            try await relay.register(phone, user: "bob")
            let id = UUID().uuidString
            let first = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: Self.events(messageId: id),
                key: Self.secret
            )
            #expect(first.status == 200, "\(first.text)")
            #expect(try first.decode(Answer.self) == Answer(applied: 4, duplicates: 0, ignored: 0, notifications: 1))
            let pushes = try await relay.mock.waitForRequests(count: 1)
            #expect(pushes[0].header("apns-collapse-id") == "dittochat-msg-" + id)
            let payload = try #require(try JSONSerialization.jsonObject(with: pushes[0].body) as? [String: Any])
            #expect(payload["dittoChatMessageId"] as? String == id)
            #expect(payload["dittoChatRoomId"] as? String == "dm-1")
            let alert = (payload["aps"] as? [String: Any])?["alert"] as? [String: Any]
            #expect(alert?["title"] as? String == "Alice")
            #expect(alert?["body"] as? String == "lunch?")

            let again = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: Self.events(messageId: id),
                key: Self.secret
            )
            #expect(try again.decode(Answer.self) == Answer(applied: 0, duplicates: 4, ignored: 0, notifications: 0))
            let view = try await relay.call("GET", "/v1/notifications?messageId=\(id)")
            #expect(try view.decode(NotificationJSON.self).deliveries.count == 1)
            #expect(relay.requests(to: phone).count == 1)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(
                metrics.contains(
                    #"pushrelay_ditto_events_total{app="app0",collection="dmMessages",outcome="notified"} 1"#
                )
            )
            #expect(
                metrics.contains(#"pushrelay_ditto_events_total{app="app0",collection="users",outcome="duplicate"} 2"#)
            )
        }
    }

    @Test func aBadEventIsNamedByItsIndexAndNothingOfTheRequestIsApplied() async throws {
        try await withRelayAndMock(configure: Self.withDitto()) { relay in
            var events = Self.events(messageId: "m-1")
            events.insert(["txnId": "seven", "type": "documentChanged", "collection": "users"], at: 1)
            let bad = try await relay.call("POST", "/v1/ditto/events", json: events, key: Self.secret)
            #expect(bad.status == 400)
            #expect(bad.text.contains("invalid_event") && bad.text.contains("event 1"), "\(bad.text)")
            let good = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: Self.events(messageId: "m-1"),
                key: Self.secret
            )
            #expect(try good.decode(Answer.self).applied == 4)
        }
    }

    /// Ditto allows any `_id`: an event of another collection whose document has an object `_id` is ignored,
    /// one of a collection the relay reads counted invalid, and the events beside them apply.
    @Test func aDocumentWithoutAStringIdIsCountedNotRefused() async throws {
        try await withRelayAndMock(configure: Self.withDitto()) { relay in
            try await relay.register(randomToken(), user: "bob")
            var events = Self.events(messageId: UUID().uuidString)
            let composite: [String: Any] = ["_id": ["day": "2026-12-08", "user": "bob"], "count": 3]
            for (txn, collection) in [(5, "analytics"), (6, "users")] {
                events.append([
                    "txnId": txn, "type": "documentChanged", "collection": collection,
                    "change": ["method": "upsert", "oldValue": NSNull(), "newValue": composite],
                ])
            }
            let answer = try await relay.call("POST", "/v1/ditto/events", json: events, key: Self.secret)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.decode(Answer.self).notifications == 1, "\(answer.text)")
            let metrics = try await relay.adminCall("/metrics").text
            #expect(
                metrics.contains(#"pushrelay_ditto_events_total{app="app0",collection="other",outcome="ignored"} 1"#)
            )
            #expect(
                metrics.contains(#"pushrelay_ditto_events_total{app="app0",collection="users",outcome="invalid"} 1"#)
            )
        }
    }

    /// A message document holding a field as DittoChat never writes it (here `text`, a number) is no push:
    /// the answer names the event and the field, the metrics count it `invalid`; the events around it apply.
    @Test func anUnreadableMessageIsNamedInTheAnswerAndCountedInvalid() async throws {
        struct Unreadable: Decodable, Equatable {
            var event: Int
            var field: String
        }
        struct Named: Decodable {
            var unreadable: Unreadable?
        }
        try await withRelayAndMock(configure: Self.withDitto()) { relay in
            var events = Self.events(messageId: "m-1")
            var change = try #require(events[3]["change"] as? [String: Any])
            var document = try #require(change["newValue"] as? [String: Any])
            document["text"] = 42
            change["newValue"] = document
            events[3]["change"] = change
            let answer = try await relay.call("POST", "/v1/ditto/events", json: events, key: Self.secret)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.decode(Answer.self) == Answer(applied: 3, duplicates: 0, ignored: 1, notifications: 0))
            #expect(try answer.decode(Named.self).unreadable == Unreadable(event: 3, field: "text"))
            // Not a message of DittoChat's: not counted unread either (bob read the room long ago).
            let read: [String: Any] = [
                "txnId": 5, "type": "documentChanged", "collection": "users",
                "change": [
                    "method": "upsert", "oldValue": NSNull(),
                    "newValue": ["_id": "bob", "name": "Bob", "subscriptions": ["dm-1": "2020-01-01T00:00:00Z"]],
                ],
            ]
            #expect(try await relay.call("POST", "/v1/ditto/events", json: [read], key: Self.secret).status == 200)
            struct Unread: Decodable { var total: Int }
            #expect(try await relay.call("GET", "/v1/users/bob/unread").decode(Unread.self).total == 0)
            let readable = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: Self.events(messageId: "m-2"),
                key: Self.secret
            )
            #expect(try readable.decode(Named.self).unreadable == nil && !readable.text.contains("unreadable"))
            #expect(try await relay.call("GET", "/v1/users/bob/unread").decode(Unread.self).total == 1)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(
                metrics.contains(
                    #"pushrelay_ditto_events_total{app="app0",collection="dmMessages",outcome="invalid"} 1"#
                ),
                "\(metrics)"
            )
        }
    }

    /// A key given twice (which value counts would depend on the reader) is refused as not JSON, the whole
    /// body or, in NDJSON, the line by its index; nothing is applied.
    @Test func anEventWithAKeyTwiceIsRefused() async throws {
        try await withRelayAndMock(configure: Self.withDitto()) { relay in
            let twice = Data(#"{"txnId":1,"txnId":2,"type":"requeryRequired"}"#.utf8)
            let json = try await relay.call("POST", "/v1/ditto/events", body: twice, key: Self.secret)
            #expect(json.status == 400 && json.text.contains("invalid_event"), "\(json.text)")
            #expect(json.text.contains("duplicate object key"), "\(json.text)")
            let lines = Data(#"{"txnId":1,"type":"requeryRequired"}"#.utf8) + Data("\n".utf8) + twice
            let ndjson = try await relay.call(
                "POST",
                "/v1/ditto/events",
                body: lines,
                key: Self.secret,
                headers: ["Content-Type": "application/x-ndjson"]
            )
            #expect(ndjson.status == 400 && ndjson.text.contains("event 1"), "\(ndjson.text)")
        }
    }

    @Test func theIngestSecretAndTheAPIKeyAuthorizeAndAnAppWithoutDittoIsRefused() async throws {
        try await withRelayAndMock(appCount: 2, configure: Self.withDitto()) { relay in
            let body = [Self.events(messageId: "m-1")[1]]
            #expect(try await relay.call("POST", "/v1/ditto/events", json: body).status == 200)
            #expect(try await relay.call("POST", "/v1/ditto/events", json: body, key: Self.secret).status == 200)
            #expect(try await relay.call("POST", "/v1/ditto/events", json: body, key: "wrong").status == 401)
            // A good key or secret naming an app, as a user credential does, is refused: users post no events.
            for key in [relay.app.apiKey, Self.secret] {
                let named = try await relay.call(
                    "POST",
                    "/v1/ditto/events",
                    json: body,
                    key: key,
                    headers: ["X-PushRelay-App": relay.apps[1].id]
                )
                #expect(named.status == 401, "\(named.text)")
            }
            let other = try await relay.call("POST", "/v1/ditto/events", json: body, key: relay.apps[1].apiKey)
            #expect(other.status == 409 && other.text.contains("ditto_not_configured"))
        }
    }

    @Test func aBodyNeitherJSONNorNDJSONIsRefusedUnread() async throws {
        try await withRelayAndMock(configure: Self.withDitto()) { relay in
            let body = try JSONSerialization.data(withJSONObject: Self.events(messageId: "m-1"))
            for contentType in ["text/plain", "application/x-ndjsonx", "application/x-www-form-urlencoded"] {
                let refused = try await relay.call(
                    "POST",
                    "/v1/ditto/events",
                    body: body,
                    key: Self.secret,
                    headers: ["Content-Type": contentType]
                )
                #expect(refused.status == 415 && refused.text.contains("unsupported_media_type"), "\(contentType)")
            }
            let json = ["Content-Type": "application/json; charset=utf-8"]
            let taken = try await relay.call("POST", "/v1/ditto/events", body: body, key: Self.secret, headers: json)
            #expect(try taken.decode(Answer.self).applied == 4, "\(taken.text)")
        }
    }

    @Test func theRoutesOwnBodyLimitHoldsAboveAndBelowTheServers() async throws {
        try await withRelayAndMock(
            configure: { configuration in
                Self.withDitto(maxBodyBytes: 4096)(&configuration)
                configuration.http.maxBodyBytes = 1024
            }
        ) { relay in
            let over = try JSONSerialization.data(withJSONObject: Self.events(messageId: "m-1", padding: 2000))
            #expect(over.count > 1024 && over.count < 4096)
            let taken = try await relay.call("POST", "/v1/ditto/events", body: over, key: Self.secret)
            #expect(taken.status == 200, "\(taken.text)")
            let tooLarge = try JSONSerialization.data(withJSONObject: Self.events(messageId: "m-1", padding: 5000))
            let refused = try await relay.call("POST", "/v1/ditto/events", body: tooLarge, key: Self.secret)
            #expect(refused.status == 413)
            // Without a credential the answer is 401 whatever the length: a stranger learns no limit.
            let stranger = try await relay.call("POST", "/v1/ditto/events", body: tooLarge, authorize: false)
            #expect(stranger.status == 401, "\(stranger.text)")
        }
    }

    @Test func ndjsonIsOneEventALineAndTheAPIKeyNeedsTheSignatureWhenTheAppHasASecret() async throws {
        let webhookSecret = "s3cret-for-signed-webhooks-0123456789"
        try await withRelayAndMock(
            configure: { configuration in
                Self.withDitto()(&configuration)
                configuration.apps[0].webhookSecret = webhookSecret
            }
        ) { relay in
            let lines = try Self.events(messageId: "m-1").map { try JSONSerialization.data(withJSONObject: $0) }
            let body = Data(lines.joined(separator: Data("\n".utf8)))
            let ndjson = ["Content-Type": "application/x-ndjson"]
            let unsigned = try await relay.call("POST", "/v1/ditto/events", body: body, headers: ndjson)
            #expect(unsigned.status == 401 && unsigned.text.contains("invalid_signature"))
            var signed = ndjson
            signed[WebhookSignature.header] = WebhookSignature.sign(
                body,
                secret: webhookSecret,
                timestamp: Int(Date().timeIntervalSince1970)
            )
            let taken = try await relay.call("POST", "/v1/ditto/events", body: body, headers: signed)
            #expect(taken.status == 200, "\(taken.text)")
            #expect(try taken.decode(Answer.self) == Answer(applied: 4, duplicates: 0, ignored: 0, notifications: 1))
            let bySecret = try await relay.call(
                "POST",
                "/v1/ditto/events",
                body: body,
                key: Self.secret,
                headers: ndjson
            )
            #expect(try bySecret.decode(Answer.self).duplicates == 4)
        }
    }
}
