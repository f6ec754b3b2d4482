import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// The state relays on one database share (provider tokens, periodic runs, rate limits) and the retention
/// of finished notifications, on each engine.
@Suite struct SharedStateStoreTests {
    typealias F = StoreFixtures

    static func issued(_ name: String, at seconds: Int) -> @Sendable () throws -> IssuedProviderToken {
        { IssuedProviderToken(token: name, issuedAt: 1_800_000_000 + seconds) }
    }

    /// The shared token of the test's ids; `signedByCaller` takes every token but `foreign`.
    static func shared(
        _ store: any Store,
        replacing: String? = nil,
        freshAfter seconds: Int,
        foreign: String? = nil,
        mint: @escaping @Sendable () throws -> IssuedProviderToken
    ) async throws -> IssuedProviderToken {
        try await store.sharedProviderToken(
            teamId: "TEAM123456",
            keyId: "ABC123DEFG",
            replacing: replacing,
            freshAfter: F.time(Double(seconds)),
            signedByCaller: { $0 != foreign },
            mint: mint
        )
    }

    @Test(arguments: StoreKind.allCases) func theStoredProviderTokenIsUsedUntilStaleOrReplaced(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        let first = try await Self.shared(store, freshAfter: -3000, mint: Self.issued("jwt-1", at: 0))
        #expect(first == IssuedProviderToken(token: "jwt-1", issuedAt: 1_800_000_000))
        let refuse: @Sendable () throws -> IssuedProviderToken = { throw StoreError(code: .io, message: "minted") }
        // Fresh and not replaced: handed out without minting.
        #expect(try await Self.shared(store, freshAfter: 0, mint: refuse) == first)
        #expect(try await Self.shared(store, replacing: "jwt-0", freshAfter: 0, mint: refuse) == first)
        // Replaced by its holder, or issued before freshAfter: minted anew and stored.
        let second = try await Self.shared(store, replacing: "jwt-1", freshAfter: 0, mint: Self.issued("jwt-2", at: 60))
        #expect(second.token == "jwt-2")
        #expect(try await Self.shared(store, replacing: "jwt-1", freshAfter: 0, mint: refuse) == second)
        let third = try await Self.shared(store, freshAfter: 61, mint: Self.issued("jwt-3", at: 3000))
        #expect(third.token == "jwt-3")
        // A failed mint stores nothing.
        await #expect(throws: StoreError.self) {
            try await Self.shared(store, replacing: "jwt-3", freshAfter: 0, mint: refuse)
        }
        #expect(try await Self.shared(store, freshAfter: 0, mint: refuse) == third)
        // Fresh but signed by another key under the same ids (a wrong key file): minted anew and stored.
        let fourth = try await Self.shared(store, freshAfter: 0, foreign: "jwt-3", mint: Self.issued("jwt-4", at: 3001))
        #expect(fourth.token == "jwt-4")
        #expect(try await Self.shared(store, freshAfter: 0, mint: refuse) == fourth)
        // Another key has a token of its own.
        let other = try await store.sharedProviderToken(
            teamId: "TEAM123456",
            keyId: "OTHERKEY01",
            replacing: nil,
            freshAfter: F.t0,
            signedByCaller: { _ in true },
            mint: Self.issued("jwt-other", at: 0)
        )
        #expect(other.token == "jwt-other")
    }

    @Test(arguments: StoreKind.allCases) func aPeriodicRunIsClaimedOncePerInterval(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let claim = { (owner: String, at: Double) in
            try await store.claimPeriodicRun(job: "job-a", owner: owner, now: F.time(at), interval: .seconds(600))
        }
        #expect(try await claim("relay-1", 0))
        #expect(try await claim("relay-2", 0) == false)
        #expect(try await claim("relay-1", 599.999) == false)
        #expect(try await claim("relay-2", 600))
        #expect(try await claim("relay-1", 600) == false)
        // Another job has a schedule of its own.
        #expect(try await store.claimPeriodicRun(job: "job-b", owner: "relay-1", now: F.time(1), interval: .seconds(1)))
        // The last claim's time, as `storage end-pending` reads an app's served mark.
        #expect(try await store.lastPeriodicRun(job: "job-a") == F.time(600))
        #expect(try await store.lastPeriodicRun(job: "job-c") == nil)
    }

    @Test(arguments: StoreKind.allCases) func retentionDeletesOnlyOldFinishedNotificationsWithTheirRows(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob", at: F.time(-100))
        try await store.register(F.token(2), user: "carol", at: F.time(-100))
        let key = IdempotencyKey(scope: "backend", key: "k-1", requestHash: Data("body".utf8))
        let finished = try await store.createNotification(
            F.notification(at: F.t0),
            recipients: .init(roomId: "room-1"),
            idempotencyKey: key
        ).notificationId
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        try await store.complete(
            [(jobs[0].deliveryId, .sent), (jobs[1].deliveryId, .failed(status: 400, reason: "BadTopic"))],
            at: F.time(1)
        )
        let pending = try await store.createNotification(
            F.notification(at: F.time(2)),
            recipients: .init(roomId: "room-1")
        )
        let young = try await store.createNotification(
            F.notification(at: F.time(5)),
            recipients: .init(roomId: "room-1")
        )
        let due = try await store.claimDueDeliveries(now: F.time(5), limit: 10, leaseSeconds: 30, owner: F.owner)
        try await store.complete(
            due.filter { $0.notificationId == young.notificationId }.map { ($0.deliveryId, .sent) },
            at: F.time(6)
        )
        #expect(try await store.deleteFinishedNotifications(createdBefore: F.time(5), limit: 10) == 1)
        #expect(try await store.notification(appId: "app-a", id: finished) == nil)
        #expect(try await store.notification(appId: "app-a", id: pending.notificationId)?.deliveries.count == 2)
        #expect(try await store.notification(appId: "app-a", id: young.notificationId) != nil)
        #expect(try await F.count("deliveries", in: store) == 4)
        #expect(try await F.count("idempotency_keys", in: store) == 0)
        #expect(try await store.deleteFinishedNotifications(createdBefore: F.time(5), limit: 10) == 0)
        // The key is free again: the same call is a new notification.
        let again = try await store.createNotification(
            F.notification(at: F.time(7)),
            recipients: .init(roomId: "room-1"),
            idempotencyKey: key
        )
        guard case .created = again else { Issue.record("not created: \(again)"); return }
    }

    @Test(arguments: StoreKind.allCases) func retentionWorksInBatchesOldestFirst(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        var ids: [UUID] = []
        for second in 0..<5 {
            let made = try await store.createNotification(
                F.notification(at: F.time(Double(4 - second))),
                recipients: .init(roomId: "room-1")
            )
            ids.append(made.notificationId)
        }
        #expect(try await store.deleteFinishedNotifications(createdBefore: F.time(10), limit: 2) == 2)
        let left = try await Array(ids.asyncFilter { try await store.notification(appId: "app-a", id: $0) != nil })
        #expect(left == Array(ids[0..<3]))
        #expect(try await store.deleteFinishedNotifications(createdBefore: F.time(10), limit: 2) == 2)
        #expect(try await store.deleteFinishedNotifications(createdBefore: F.time(10), limit: 2) == 1)
    }

    static func rate(
        _ sender: String = "alice",
        to recipients: [String] = ["bob"],
        perMinute: Int = 60,
        burst: Int = 2,
        pushes: Int = 30
    ) -> UserRateRequest {
        UserRateRequest(
            appId: "app-a",
            senderId: sender,
            recipients: recipients,
            webhooksPerMinute: perMinute,
            burst: burst,
            pushesPerRecipientPerMinute: pushes
        )
    }

    @Test(arguments: StoreKind.allCases) func theWebhookBucketEmptiesRefillsAndRefusesWithoutTaking(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        #expect(try await store.takeUserRate(Self.rate(), at: F.t0) == nil)
        #expect(try await store.takeUserRate(Self.rate(), at: F.t0) == nil)
        #expect(try await store.takeUserRate(Self.rate(), at: F.t0) == .webhooks(retryAfterSeconds: 1))
        #expect(try await store.takeUserRate(Self.rate(), at: F.time(0.5)) == .webhooks(retryAfterSeconds: 1))
        // One token a second: a refused call took nothing, so one is back a second after the last take.
        #expect(try await store.takeUserRate(Self.rate(), at: F.time(1)) == nil)
        #expect(try await store.takeUserRate(Self.rate(), at: F.time(1)) == .webhooks(retryAfterSeconds: 1))
        // Another sender, and a sender spelled with other bytes, have buckets of their own.
        #expect(try await store.takeUserRate(Self.rate("carol"), at: F.time(1)) == nil)
        #expect(try await store.takeUserRate(Self.rate("e\u{301}"), at: F.time(1)) == nil)
        #expect(try await store.takeUserRate(Self.rate("e\u{301}"), at: F.time(1)) == nil)
        #expect(try await store.takeUserRate(Self.rate("\u{e9}"), at: F.time(1)) == nil)
        // A slow refill says how long the missing token takes.
        let slow = Self.rate("dave", perMinute: 1, burst: 1)
        #expect(try await store.takeUserRate(slow, at: F.t0) == nil)
        #expect(try await store.takeUserRate(slow, at: F.time(15)) == .webhooks(retryAfterSeconds: 45))
    }

    @Test(arguments: StoreKind.allCases) func pushesPerRecipientCountPerMinuteAndARefusalCountsNothing(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        let request = { (to: [String]) in Self.rate(to: to, burst: 100, pushes: 2) }
        #expect(try await store.takeUserRate(request(["bob", "carol"]), at: F.time(10)) == nil)
        #expect(try await store.takeUserRate(request(["bob"]), at: F.time(20)) == nil)
        // bob is at 2: the whole webhook is refused, carol's count and the bucket are untouched.
        #expect(
            try await store.takeUserRate(request(["carol", "bob"]), at: F.time(30))
                == .pushesPerRecipient(retryAfterSeconds: 30)
        )
        #expect(try await store.takeUserRate(request(["carol"]), at: F.time(40)) == nil)
        #expect(
            try await store.takeUserRate(request(["carol"]), at: F.time(41))
                == .pushesPerRecipient(retryAfterSeconds: 19)
        )
        // A recipient named twice counts twice.
        #expect(try await store.takeUserRate(request(["dave", "dave"]), at: F.time(42)) == nil)
        #expect(try await store.takeUserRate(request(["dave"]), at: F.time(43)) != nil)
        // The next minute starts afresh.
        #expect(try await store.takeUserRate(request(["bob", "carol", "dave"]), at: F.time(60)) == nil)
    }

    @Test(arguments: StoreKind.allCases) func aRefusedTakeUpdatesNoBucket(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let one = Self.rate(burst: 1)
        #expect(try await store.takeUserRate(one, at: F.t0) == nil)
        #expect(try await store.takeUserRate(one, at: F.time(0.5)) == .webhooks(retryAfterSeconds: 1))
        // The bucket is as the take at t0 left it, so it is full (and pruned) 1.001 s after t0, not after the
        // refusal.
        #expect(try await store.takeUserRate(Self.rate("zed", burst: 1), at: F.time(1.2)) == nil)
        #expect(try await F.count("rate_buckets", in: store) == 1)
    }

    @Test(arguments: StoreKind.allCases) func oldRateRowsArePrunedAsWebhooksArrive(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        for sender in 0..<5 {
            #expect(try await store.takeUserRate(Self.rate("user-\(sender)"), at: F.t0) == nil)
        }
        #expect(try await F.count("rate_buckets", in: store) == 5)
        #expect(try await F.count("rate_pushes", in: store) == 5)
        // Two tokens refill in two seconds: later, the idle buckets are full and dropped, and the old
        // minute's counts go.
        #expect(try await store.takeUserRate(Self.rate("zed"), at: F.time(61)) == nil)
        #expect(try await F.count("rate_buckets", in: store) == 1)
        #expect(try await F.count("rate_pushes", in: store) == 1)
    }
}

extension Sequence {
    /// The elements `isIncluded` keeps, in order.
    func asyncFilter(_ isIncluded: (Element) async throws -> Bool) async rethrows -> [Element] {
        var kept: [Element] = []
        for element in self where try await isIncluded(element) { kept.append(element) }
        return kept
    }
}
