import Foundation
import RelayCore
import Testing

/// The per-user limits: over a rate, 429 `rate_limited` with `Retry-After`; over a count (devices, rooms), 409
/// `limit_reached`; nothing stored, and a metric.
@Suite struct LimitsTests {
    static func limited(_ limits: Configuration.Limits) -> (inout Configuration) -> Void {
        { configuration in
            RelayHarness.withUserAuth(&configuration)
            configuration.apps[0].limits = limits
        }
    }

    static func message(_ id: String, room: String = "room") -> [String: Any] {
        ["roomId": room, "text": "hello", "messageId": id]
    }

    @Test func webhooksPastTheBurstAreRefusedAndStoreNothing() async throws {
        let limits = Configuration.Limits(webhooksPerMinute: 1, webhookBurst: 3)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["room"])
            try await relay.register(randomToken(), user: "bob", rooms: ["room"])
            for index in 0..<3 {
                let sent = try await relay.call(
                    "POST",
                    "/v1/webhooks/did-send-message",
                    json: Self.message("m\(index)"),
                    user: "alice"
                )
                #expect(sent.status == 202, "\(sent.text)")
                _ = try await relay.settled(try sent.decode(WebhookAnswer.self).notificationId)
            }
            let before = try await relay.state(rooms: ["room"])
            let refused = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: Self.message("m3"),
                user: "alice"
            )
            #expect(refused.status == 429 && refused.error?.code == "rate_limited")
            #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
            #expect(try await relay.state(rooms: ["room"]) == before)
            // The limits come before the room: a refused sender causes no read of the room or its members.
            let elsewhere = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: Self.message("m4", room: "not-alice-s"),
                user: "alice"
            )
            #expect(elsewhere.status == 429 && elsewhere.error?.code == "rate_limited", "\(elsewhere.text)")
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="webhooks"} 2"#))
            // Another user has a bucket of its own, and the backend is not limited.
            let bob = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: Self.message("b0"),
                user: "bob"
            )
            #expect(bob.status == 202)
            for index in 0..<5 {
                var body = Self.message("k\(index)")
                body["senderId"] = "alice"
                _ = try await relay.webhook(body)
            }
        }
    }

    /// A webhook refused for its room or recipients takes a webhook from its sender too: past the burst a
    /// user naming strangers is refused 429 before the room or the recipients are read.
    @Test func refusedWebhooksTakeFromTheSendersBucket() async throws {
        let limits = Configuration.Limits(webhooksPerMinute: 1, webhookBurst: 3)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["room"])
            var statuses: [Int] = []
            for index in 0..<4 {
                var body = Self.message("m\(index)", room: index == 0 ? "not-alice-s" : "room")
                body["recipients"] = ["mallory-\(index)"]
                let answer = try await relay.call("POST", "/v1/webhooks/did-send-message", json: body, user: "alice")
                statuses.append(answer.status)
            }
            #expect(statuses == [403, 403, 403, 429])
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="webhooks"} 1"#))
        }
    }

    /// The same with the calls all in flight at once: only the burst's are refused for their recipients, the
    /// rest are refused 429 before the room or the recipients are read.
    @Test func refusedWebhooksInFlightAtOnceTakeFromTheSendersBucket() async throws {
        let limits = Configuration.Limits(webhooksPerMinute: 1, webhookBurst: 3)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            try await relay.register(randomToken(), user: "alice", rooms: ["room"])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        var body = Self.message("m\(index)")
                        // Thousands of names: each refusal reads long enough for the others to arrive.
                        body["recipients"] = (0..<3000).map { "x\(index)-\($0)" }
                        return try await relay.call("POST", "/v1/webhooks/did-send-message", json: body, user: "alice")
                            .status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == Array(repeating: 403, count: 3) + Array(repeating: 429, count: 9))
        }
    }

    @Test func theBackendIsLimitedByTheSenderItNamesWhenConfigured() async throws {
        let limits = Configuration.Limits(webhooksPerMinute: 1, webhookBurst: 1, limitBackend: true)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            _ = try await relay.webhook(["roomId": "room", "senderId": "alice", "text": "1"])
            let refused = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "room", "senderId": "alice", "text": "2"]
            )
            #expect(refused.status == 429 && refused.error?.code == "rate_limited")
            _ = try await relay.webhook(["roomId": "room", "senderId": "bob", "text": "3"])
        }
    }

    @Test func pushesToOneRecipientAreCountedPerMinute() async throws {
        let limits = Configuration.Limits(webhookBurst: 100, pushesPerRecipientPerMinute: 2)
        try await withRelayAndMock(time: MinuteStartTimeSource(), configure: Self.limited(limits)) { relay in
            let bobPhone = randomToken()
            try await relay.register(randomToken(), user: "alice", rooms: ["room", "other", "third"])
            try await relay.register(bobPhone, user: "bob", rooms: ["room", "other"])
            try await relay.register(randomToken(), user: "carol", rooms: ["other"])
            try await relay.register(randomToken(), user: "dave", rooms: ["third"])
            #expect(
                try await relay.call("POST", "/v1/webhooks/did-send-message", json: Self.message("1"), user: "alice")
                    .status == 202
            )
            #expect(
                try await relay.call(
                    "POST",
                    "/v1/webhooks/did-send-message",
                    json: Self.message("2", room: "other"),
                    user: "alice"
                ).status == 202
            )
            // Bob has had two from Alice this minute, through either room: a third is refused whole, so Carol
            // gets nothing from it either.
            let refused = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: Self.message("3", room: "other"),
                user: "alice"
            )
            #expect(refused.status == 429 && refused.error?.code == "rate_limited")
            #expect(refused.error?.message.contains("pushes_per_recipient") == true)
            // Carol alone is still reachable.
            let direct = try await relay.call(
                "POST",
                "/v1/webhooks/did-send-message",
                json: ["roomId": "other", "text": "just you", "recipients": ["carol"]],
                user: "alice"
            )
            #expect(direct.status == 202)
            // A recipient named twice counts (and is pushed) once: Dave gets two.
            for text in ["twice", "again"] {
                let named = try await relay.call(
                    "POST",
                    "/v1/webhooks/did-send-message",
                    json: ["roomId": "third", "text": text, "recipients": ["dave", "dave"]],
                    user: "alice"
                )
                #expect(named.status == 202, "\(named.text)")
                #expect(try named.decode(WebhookAnswer.self).devices == 1)
            }
            let answer = try direct.decode(WebhookAnswer.self)
            _ = try await relay.settled(answer.notificationId)
            #expect(relay.requests(to: bobPhone).count == 2)
        }
    }

    @Test func devicesAndRoomsPerUserAreCapped() async throws {
        let limits = Configuration.Limits(devicesPerUser: 2, roomsPerUser: 2)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            let phones = (0..<3).map { _ in randomToken() }
            for phone in phones.prefix(2) {
                #expect(
                    try await relay.call("POST", "/v1/devices", json: ["token": phone], user: "alice").status == 201
                )
            }
            let third = try await relay.call("POST", "/v1/devices", json: ["token": phones[2]], user: "alice")
            // A count, not a rate: waiting frees nothing, so no Retry-After.
            #expect(third.status == 409 && third.error?.code == "limit_reached" && third.header("Retry-After") == nil)
            #expect(try await relay.devices(of: "alice").count == 2)
            // Registering a device it has again is not a new one.
            #expect(
                try await relay.call("POST", "/v1/devices", json: ["token": phones[0]], user: "alice").status == 200
            )

            // A list of more rooms than a user may be in is refused before any room is looked up (one of them
            // closed, which a look would refuse 403).
            #expect(try await relay.call("PUT", "/v1/rooms/shut", json: ["membership": "closed"]).status == 200)
            let many = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": phones[0], "rooms": ["shut", "r1", "r2", "r1"]] as [String: Any],
                user: "alice"
            )
            #expect(many.status == 409 && many.error?.code == "limit_reached", "\(many.text)")
            #expect(many.error?.message == "Over the rooms limit: rooms names 3 rooms; 'alice' may be in at most 2")
            let two = try await relay.call(
                "POST",
                "/v1/devices",
                json: ["token": phones[0], "rooms": ["r1", "r1"]] as [String: Any],
                user: "alice"
            )
            #expect(two.status == 200, "\(two.text)")
            #expect(try await relay.call("PUT", "/v1/rooms/r1/members/alice", user: "alice").status == 204)
            #expect(try await relay.call("PUT", "/v1/rooms/r2/members/alice", user: "alice").status == 204)
            #expect(try await relay.call("PUT", "/v1/rooms/r1/members/alice", user: "alice").status == 204)
            let join = try await relay.call("PUT", "/v1/rooms/r3/members/alice", user: "alice")
            #expect(join.status == 409 && join.error?.code == "limit_reached" && join.header("Retry-After") == nil)
            #expect(join.error?.message.hasSuffix("'alice' has 2 rooms and would join 1; at most 2") == true)
            #expect(try await relay.call("GET", "/v1/rooms/r3/members").text == #"{"members":[]}"#)
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="devices"} 1"#))
            #expect(metrics.contains(#"pushrelay_rate_limited_total{limit="rooms"} 2"#))
        }
    }

    /// A user the backend took past its device limit registers its own devices again (apps do at every
    /// launch); only a new one is refused, and the answer counts every live device it has.
    @Test func aUserOverItsDeviceLimitRegistersItsOwnDevicesAgain() async throws {
        let limits = Configuration.Limits(devicesPerUser: 2)
        try await withRelayAndMock(configure: Self.limited(limits)) { relay in
            let phones = (0..<4).map { _ in randomToken() }
            for phone in phones.prefix(2) {
                #expect(
                    try await relay.call("POST", "/v1/devices", json: ["token": phone], user: "alice").status == 201
                )
            }
            try await relay.register(phones[2], user: "alice")  // the backend's: not limited
            for phone in phones.prefix(3) {
                let again = try await relay.call("POST", "/v1/devices", json: ["token": phone], user: "alice")
                #expect(again.status == 200, "\(again.text)")
            }
            let fourth = try await relay.call("POST", "/v1/devices", json: ["token": phones[3]], user: "alice")
            #expect(fourth.status == 409 && fourth.error?.code == "limit_reached", "\(fourth.text)")
            let detail = "'alice' has 3 live devices and would add 1; at most 2"
            #expect(fourth.error?.message.contains(detail) == true, "\(fourth.text)")
        }
    }
}

/// The machine's clocks with the wall clock set back to the start of the current minute when made: a test's
/// calls fall in one counting minute unless it runs for a whole minute, wherever the real minute stands.
private struct MinuteStartTimeSource: TimeSource {
    private let system = SystemTimeSource()
    private let offset: TimeInterval
    init() { offset = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60) }
    var monotonic: Duration { system.monotonic }
    var now: Date { system.now - offset }
}
