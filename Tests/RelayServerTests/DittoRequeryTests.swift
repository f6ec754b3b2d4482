import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayStore
import RelayTestSupport
import Testing

@testable import RelayServer

/// `requeryRequired` through the real relay: the admin per-app readiness check is degraded until a re-read
/// through a fake Ditto HTTP API (a real socket) completes; the re-read pages by `_id`, removes what Ditto no
/// longer has (a removed room member gets no more messages), and pushes nothing; a failing API keeps the
/// check degraded.
@Suite struct DittoRequeryTests {
    static let apiKey = "ditto-http-api-key-0123456789"

    /// Before the requery: room-1 with subscribers bob and carol, alice's user document, and room-gone.
    static var mirrored: [[String: Any]] {
        func upsert(_ txn: Int, _ collection: String, _ document: [String: Any]) -> [String: Any] {
            [
                "txnId": txn, "type": "documentChanged", "collection": collection,
                "change": ["method": "upsert", "oldValue": NSNull(), "newValue": document],
            ]
        }
        let subscribed = ["room-1": "2020-01-01T00:00:00Z"]
        return [
            upsert(1, "rooms", ["_id": "room-1", "name": "Team"]),
            upsert(2, "rooms", ["_id": "room-gone", "name": "Gone"]),
            upsert(3, "users", ["_id": "alice", "name": "Alice", "subscriptions": [String: Any]()]),
            upsert(4, "users", ["_id": "bob", "name": "Bob", "subscriptions": subscribed]),
            upsert(5, "users", ["_id": "carol", "name": "Carol", "subscriptions": subscribed]),
        ]
    }

    /// What Ditto holds when it is re-read: carol and room-gone are gone, dave subscribed; erin's document
    /// nested past what the relay reads, fay's holding NUL and two with an object `_id` (sorting after the
    /// strings) are passed over, and the rest of the page and the pages after it are read.
    static var ditto: [String: [[String: Any]]] {
        let subscribed = ["room-1": "2020-01-01T00:00:00Z"]
        var deep: Any = 1
        for _ in 0...JSONValue.maxDepth { deep = [deep] }
        return [
            "rooms": [["_id": "room-1", "name": "Team"]],
            "users": [
                ["_id": "alice", "name": "Alice", "subscriptions": [String: Any]()],
                ["_id": "bob", "name": "Bob", "subscriptions": subscribed],
                ["_id": "dave", "name": "Dave", "subscriptions": subscribed],
                ["_id": "erin", "name": "Erin", "extra": deep],
                // PostgreSQL cannot keep NUL: left out of the re-read on both stores.
                ["_id": "fay", "name": "F\u{0}", "subscriptions": subscribed],
                ["_id": ["org": "x", "n": "1"], "name": "Object", "subscriptions": subscribed],
                ["_id": ["org": "x", "n": "2"], "name": "Object", "subscriptions": subscribed],
                ["_id": "gus", "name": "Gus", "subscriptions": subscribed],
            ],
        ]
    }

    static var requery: [String: Any] { ["txnId": 10, "type": "requeryRequired"] }

    /// A message of alice in room-1, written now.
    static func message(_ id: String) -> [String: Any] {
        [
            "txnId": 20, "type": "documentChanged", "collection": "messages",
            "change": [
                "method": "upsert", "oldValue": NSNull(),
                "newValue": [
                    "_id": id, "roomId": "room-1", "userId": "alice", "text": "hi",
                    "createdOn": Timestamp.rfc3339(Date()),
                ] as [String: Any],
            ],
        ]
    }

    /// Gives app0 `apps[].ditto` (the ingest secret) and, with `api`, `httpAPI` at it.
    static func configure(api: String?) -> (inout Configuration) -> Void {
        { configuration in
            DittoEventsTests.withDitto()(&configuration)
            if let api { configuration.apps[0].ditto?.httpAPI = .init(url: api, apiKey: apiKey) }
        }
    }

    /// The admin listener's `ditto:app0` check.
    static func dittoCheck(_ relay: RelayHarness) async throws -> String? {
        try await check("ditto:app0", relay)
    }

    /// Check `name` of the admin `/readyz`, nil when it has none.
    static func check(_ name: String, _ relay: RelayHarness) async throws -> String? {
        let answer = try await relay.adminCall("/readyz")
        let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        return (object?["checks"] as? [String: String])?[name]
    }

    /// Polls `condition` every 100 ms for up to `timeout`.
    static func eventually(
        timeout: Duration = .seconds(90),
        _ what: String,
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure(description: "never: \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func theRelayReReadsAfterTheAPIRecoversAndARemovedMemberGetsNothingMore() async throws {
        try await withEndpoint({ _ in Self.unavailable }) { endpoint in
            try await withRelayAndMock(configure: Self.configure(api: endpoint.url("ditto"))) { relay in
                try await Self.reReadAfterRecovery(relay, endpoint)
            }
        }
    }

    static func reReadAfterRecovery(_ relay: RelayHarness, _ endpoint: TestEndpoint) async throws {
        do {
            let phones = ["bob", "carol", "dave"].map { ($0, randomToken()) }
            for (user, token) in phones { try await relay.register(token, user: user) }
            let fed = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: Self.mirrored,
                key: DittoEventsTests.secret
            )
            #expect(fed.status == 200, "\(fed.text)")
            #expect(try await Self.dittoCheck(relay) == "ok")
            let asked = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: [Self.requery],
                key: DittoEventsTests.secret
            )
            #expect(asked.status == 200, "\(asked.text)")

            try await Self.eventually("the check reads degraded") {
                try await Self.dittoCheck(relay)?.hasPrefix("degraded") == true
            }
            try await Self.eventually("the API was asked twice") { endpoint.calls >= 2 }
            #expect(try await Self.dittoCheck(relay)?.hasPrefix("degraded") == true)
            try await Self.eventually("the re-read says why it fails") {
                try await Self.check("ditto-reread:app0", relay) == "failing (the HTTP API answered 503)"
            }
            let metrics = try await relay.adminCall("/metrics").text
            #expect(metrics.contains(#"pushrelay_ditto_requeries_total{app="app0"} 1"#))

            endpoint.answer(FakeDittoAPI.serving(Self.ditto))
            try await Self.eventually("the check reads ok") { try await Self.dittoCheck(relay) == "ok" }
            try await Self.eventually("the failure is gone") { try await Self.check("ditto-reread:app0", relay) == nil }
            let request = try #require(endpoint.requests.last)
            #expect(request.headers["authorization"] == "Bearer \(Self.apiKey)")
            #expect(request.headers["content-type"] == "application/json")
            let read = Set(endpoint.requests.compactMap(FakeDittoAPI.statement).map(\.collection))
            #expect(read == ["rooms", "dm_rooms", "users"])
            #expect(relay.mock.requests.isEmpty, "the re-read pushed something")

            let pushed = try await relay.call(
                "POST",
                "/v1/ditto/events",
                json: [Self.message(UUID().uuidString)],
                key: DittoEventsTests.secret
            )
            #expect(pushed.status == 200, "\(pushed.text)")
            _ = try await relay.mock.waitForRequests(count: 2, timeout: .seconds(60))
            let reached = Set(phones.filter { !relay.requests(to: $0.1).isEmpty }.map(\.0))
            #expect(reached == ["bob", "dave"])
        }
    }

    @Test func theJobPagesByIdAndAFailingAPIKeepsTheRequeryPending() async throws {
        try await withEndpoint({ _ in Self.unavailable }) { endpoint in
            try await withRelayAndMock(configure: Self.configure(api: nil)) { relay in
                _ = try await relay.call("POST", "/v1/ditto/events", json: Self.mirrored, key: DittoEventsTests.secret)
                _ = try await relay.call("POST", "/v1/ditto/events", json: [Self.requery], key: DittoEventsTests.secret)
                try await Self.eventually("the check asks to re-feed") {
                    try await Self.dittoCheck(relay)?.contains(
                        "then run `push-relay storage requery-done --app app0 --txn-id 10` with the relay's configuration)"
                    ) == true
                }
                let store = try relay.relay.store
                let configuration = relay.configuration
                var job = DittoRequeryJob(
                    appId: "app0",
                    api: DittoQueryAPI(settings: .init(url: endpoint.url("ditto"), apiKey: Self.apiKey)),
                    applySettings: DittoApplySettings(app: configuration.apps[0], ditto: configuration.apps[0].ditto!),
                    store: store,
                    owner: "test",
                    time: SystemTimeSource(),
                    logger: .disabled()
                )
                job.settings.pageSize = 2
                await #expect(throws: DittoQueryAPI.Failure.self) { try await job.runIfPending() }
                endpoint.answer { _ in TestEndpoint.json(["items": "not a list"]) }
                await #expect(throws: DittoQueryAPI.Failure.self) { try await job.runIfPending() }
                let refused = DittoRequeryJob(
                    appId: "app0",
                    api: DittoQueryAPI(settings: .init(url: try await TestEndpoint.closedURL(), apiKey: Self.apiKey)),
                    applySettings: job.applySettings,
                    store: store,
                    owner: "test",
                    time: SystemTimeSource(),
                    logger: .disabled()
                )
                await #expect(throws: DittoQueryAPI.Failure.self) { try await refused.runIfPending() }
                #expect(try await store.pendingDittoRequeries() == ["app0": 10])
                // An API that ignores `after` answers a full page again: the re-read stops instead of looping.
                endpoint.answer(FakeDittoAPI.serving(Self.ditto, ignoringAfter: true))
                await #expect {
                    try await job.runIfPending()
                } throws: { error in
                    "\(error)".contains("the same page of users")
                }
                #expect(try await store.pendingDittoRequeries() == ["app0": 10])

                let before = endpoint.calls
                endpoint.answer(FakeDittoAPI.serving(Self.ditto))
                #expect(try await job.runIfPending())
                let statements = endpoint.requests.dropFirst(before).compactMap(FakeDittoAPI.statement)
                #expect(
                    statements == [
                        .init(collection: "rooms", after: nil, limit: 2),
                        .init(collection: "dm_rooms", after: nil, limit: 2),
                        .init(collection: "users", after: nil, limit: 2),
                        .init(collection: "users", after: .string("bob"), limit: 2),
                        .init(collection: "users", after: .string("erin"), limit: 2),
                        .init(collection: "users", after: .string("gus"), limit: 2),
                        .init(collection: "users", after: .object(["org": .string("x"), "n": .string("2")]), limit: 2),
                    ]
                )
                #expect(try await store.isDittoSubscriber(appId: "app0", roomId: "room-1", userId: "dave"))
                #expect(try await store.isDittoSubscriber(appId: "app0", roomId: "room-1", userId: "gus"))
                #expect(try await store.isDittoSubscriber(appId: "app0", roomId: "room-1", userId: "fay") == false)
                #expect(try await store.pendingDittoRequeries().isEmpty)
                #expect(try await job.runIfPending() == false)
                try await Self.eventually("the check reads ok") { try await Self.dittoCheck(relay) == "ok" }
                #expect(relay.mock.requests.isEmpty, "the re-read pushed something")
            }
        }
    }
}

extension DittoRequeryTests {
    /// 503, as a Ditto that cannot answer now.
    static var unavailable: HTTPResponse { HTTPResponse(status: 503) }
}
