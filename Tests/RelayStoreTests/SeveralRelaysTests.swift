import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// Several stores on one PostgreSQL database, as several relays on it, calling at the same moment: what must
/// hold across instances holds (one notification per message id, one run per interval, one rate budget,
/// one claimer per feedback item).
@Suite struct SeveralRelaysTests {
    typealias F = StoreFixtures

    /// `count` stores on one new PostgreSQL database.
    static func relays(_ count: Int) async throws -> [any Store] {
        let database = try await StoreKind.postgres.makeDatabase()
        return try (0..<count).map { _ in try database.open() }
    }

    /// Runs `body` once on each store at the same moment and collects the results in store order.
    static func atOnce<T: Sendable>(
        _ stores: [any Store],
        _ body: @escaping @Sendable (any Store) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for (index, store) in stores.enumerated() { group.addTask { (index, try await body(store)) } }
            var results: [(Int, T)] = []
            for try await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    @Test func oneWebhookGivenToTwoRelaysAtOnceRecordsOneNotificationPerMessageId() async throws {
        let stores = try await Self.relays(2)
        try await stores[0].register(F.token(1), user: "bob")
        try await stores[0].register(F.token(2), user: "carol")
        let rounds = 40
        for round in 0..<rounds {
            let outcomes = try await Self.atOnce(stores) { store in
                try await store.createNotification(
                    F.notification(messageId: "m-\(round)"),
                    recipients: .init(roomId: "room-1")
                )
            }
            let created = outcomes.filter { if case .created = $0 { true } else { false } }
            #expect(created.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.contains(.duplicate(notificationId: created.first?.notificationId ?? UUID(), devices: 2)))
        }
        #expect(try await F.count("notifications", in: stores[1]) == rounds)
        #expect(try await F.count("deliveries", in: stores[1]) == 2 * rounds)
    }

    @Test func oneWebhookWithAKeyAndAMessageIdGivenToTwoRelaysAtOnceRecordsOne() async throws {
        let stores = try await Self.relays(2)
        try await stores[0].register(F.token(1), user: "bob")
        let rounds = 40
        for round in 0..<rounds {
            let outcomes = try await Self.atOnce(stores) { store in
                try await store.createNotification(
                    F.notification(messageId: "m-\(round)"),
                    recipients: .init(roomId: "room-1"),
                    idempotencyKey: IdempotencyKey(scope: "backend", key: "k-\(round)", requestHash: Data("b".utf8))
                )
            }
            let created = outcomes.filter { if case .created = $0 { true } else { false } }
            #expect(created.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.contains(.duplicate(notificationId: created.first?.notificationId ?? UUID(), devices: 1)))
        }
        #expect(try await F.count("notifications", in: stores[0]) == rounds)
        #expect(try await F.count("idempotency_keys", in: stores[0]) == rounds)
    }

    @Test func aPeriodicJobRunsOncePerIntervalWhateverTheNumberOfRelays() async throws {
        let stores = try await Self.relays(4)
        for round in 0..<20 {
            let now = F.time(Double(round) * 600)
            let claimed = try await Self.atOnce(stores) { store in
                try await store.claimPeriodicRun(job: "retention", owner: "relay", now: now, interval: .seconds(600))
            }
            #expect(claimed.filter { $0 }.count == 1, "round \(round): \(claimed)")
        }
    }

    @Test func relaysShareOneWebhookBudgetPerSender() async throws {
        let stores = try await Self.relays(3)
        let request = UserRateRequest(
            appId: "app-a",
            senderId: "alice",
            recipients: ["bob"],
            webhooksPerMinute: 60,
            burst: 10,
            pushesPerRecipientPerMinute: 1000
        )
        let answers = try await Self.atOnce(stores) { store in
            var allowed = 0
            for _ in 0..<10 where try await store.takeUserRate(request, at: F.t0) == nil { allowed += 1 }
            return allowed
        }
        #expect(answers.reduce(0, +) == 10)
        #expect(try await stores[0].takeUserRate(request, at: F.t0) == .webhooks(retryAfterSeconds: 1))
    }

    @Test func relaysShareOnePushCountPerRecipient() async throws {
        let stores = try await Self.relays(3)
        let request = UserRateRequest(
            appId: "app-a",
            senderId: "alice",
            recipients: ["bob", "carol"],
            webhooksPerMinute: 6000,
            burst: 1000,
            pushesPerRecipientPerMinute: 7
        )
        let answers = try await Self.atOnce(stores) { store in
            var allowed = 0
            for _ in 0..<10 where try await store.takeUserRate(request, at: F.time(5)) == nil { allowed += 1 }
            return allowed
        }
        #expect(answers.reduce(0, +) == 7)
    }

    @Test func twoRelaysClaimingFeedbackNeverTakeOneItem() async throws {
        let stores = try await Self.relays(2)
        for store in stores { await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"])) }
        for n in 0..<60 { try await stores[0].register(F.token(n), user: "u\(n)", at: F.time(-10)) }
        _ = try await stores[0].createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let jobs = try await stores[0].claimDueDeliveries(now: F.t0, limit: 100, leaseSeconds: 30, owner: F.owner)
        try await stores[0].complete(
            jobs.map { ($0.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(-5))) },
            at: F.time(1)
        )
        #expect(try await stores[0].pendingFeedbackCount() == 60)
        let claimed = try await Self.atOnce(stores) { store in
            var mine: [Int64] = []
            while true {
                let items = try await store.claimDueFeedback(now: F.time(2), limit: 3, leaseSeconds: 60, owner: F.owner)
                if items.isEmpty { return mine }
                mine += items.map(\.feedbackId)
            }
        }
        let all = claimed.flatMap { $0 }
        #expect(all.count == 60 && Set(all).count == 60)
    }
}
