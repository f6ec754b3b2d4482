import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// A delivery held back while its app's sends are paused (``DeliveryOutcome/deferred(at:status:reason:)``)
/// stays pending, due again at the given time, without an attempt counted, on every engine.
@Suite struct DeferredDeliveryTests {
    typealias F = StoreFixtures

    @Test(arguments: StoreKind.allCases) func aDeferredDeliverySpendsNoAttempt(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        for n in 1...2 { try await store.register(F.token(n), user: "bob", at: F.time(-10)) }
        let id = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            .notificationId
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        try #require(jobs.count == 2)
        try await store.complete(
            [
                (jobs[0].deliveryId, .deferred(at: F.time(5), status: 403, reason: "InvalidProviderToken")),
                (jobs[1].deliveryId, .deferred(at: F.time(5), status: nil, reason: nil)),
            ],
            at: F.time(1)
        )
        #expect(
            try await store.claimDueDeliveries(now: F.time(4), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty
        )
        let (summary, deliveries) = try #require(try await store.notification(appId: "app-a", id: id))
        #expect(summary.counts == DeliveryCounts(pending: 2))
        #expect(deliveries.allSatisfy { $0.attempts == 0 && $0.nextAttemptAt == F.time(5) })
        let refused = try #require(deliveries.first { $0.deliveryId == jobs[0].deliveryId })
        #expect(refused.lastStatus == 403 && refused.lastReason == "InvalidProviderToken")

        let again = try await store.claimDueDeliveries(now: F.time(5), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(Set(again.map(\.deliveryId)) == Set(jobs.map(\.deliveryId)))
        #expect(again.allSatisfy { $0.attempts == 0 })
    }

    /// A delivery the service refused and that is then held unsent at the next claims keeps showing the
    /// refusal (docs/behaviour.md, "Push credentials refused"): a hold is no answer.
    @Test(arguments: StoreKind.allCases) func aHeldDeliveryKeepsShowingTheRefusal(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob", at: F.time(-10))
        let id = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            .notificationId
        let refused = DeliveryOutcome.deferred(at: F.time(5), status: 403, reason: "InvalidProviderToken")
        for (round, outcome) in [refused, .deferred(at: F.time(10), status: nil, reason: nil)].enumerated() {
            let now = F.time(5 * Double(round))
            let job = try #require(
                try await store.claimDueDeliveries(now: now, limit: 10, leaseSeconds: 30, owner: F.owner).first
            )
            try await store.complete([(job.deliveryId, outcome)], at: now)
        }
        let delivery = try #require(try await store.notification(appId: "app-a", id: id)?.deliveries.first)
        #expect(delivery.status == .pending && delivery.attempts == 0 && delivery.nextAttemptAt == F.time(10))
        #expect(delivery.lastStatus == 403 && delivery.lastReason == "InvalidProviderToken")
    }
}
