import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// ``Store/endPendingWork(appId:at:)`` on every engine: an app taken out of every configuration has its
/// pending deliveries (leased ones too) failed with reason `AppRemoved`, its due badge updates no longer due
/// and its queued feedback deleted; another app's work is untouched, and a late result changes nothing.
@Suite struct EndPendingWorkTests {
    typealias F = StoreFixtures
    typealias B = BadgeUpdateStoreTests

    @Test(arguments: StoreKind.allCases) func anAppsPendingWorkEndsAndOnlyItsOwn(kind: StoreKind) async throws {
        // app-a: bob's three deliveries to APNs token 2 and three to FCM token 2, leased.
        let (store, now) = try await B.store(kind)
        await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a", "app-b"], lifetimeSeconds: 3600))
        let leased = try await F.count("deliveries WHERE status = 'pending'", in: store)
        #expect(leased == 6)
        // FCM retires its token: one dead-token feedback item queued for app-a.
        let fcmRows = "deliveries WHERE app_id = 'app-a' AND token = '\(F.fcmToken(2).value)'"
        let fcm = try await F.ids(of: fcmRows, in: store)
        try await store.complete(
            fcm.map { ($0, .retired(status: 404, reason: "UNREGISTERED", invalidSince: now)) },
            at: now
        )
        #expect(try await store.pendingFeedbackCount() >= 1)
        // bob reads: token 2 gets a due badge update.
        try await B.read(store, "bob", at: 2)
        #expect(try await store.appsWithDueBadgeUpdates(now: now) == ["app-a"])
        // app-b: one pending delivery.
        try await store.register(F.token(5), user: "erin", app: "app-b", at: F.time(-10))
        _ = try await store.createNotification(F.notification(app: "app-b"), recipients: .init(roomId: "room-1"))

        let feedback = try await store.pendingFeedbackCount()
        let ended = try await store.endPendingWork(appId: "app-a", at: now)
        #expect(ended == EndedWork(deliveries: 3, badgeUpdates: 1, feedback: feedback))
        let removed = "deliveries WHERE status = 'failed' AND last_reason = 'AppRemoved'"
        #expect(try await F.count(removed, in: store) == 3)
        #expect(try await store.appsWithDueBadgeUpdates(now: now.addingTimeInterval(60)).isEmpty)
        #expect(try await store.pendingFeedbackCount() == 0)
        let later = now.addingTimeInterval(7200)
        #expect(
            try await store.claimDueDeliveries(appId: "app-a", now: later, limit: 10, leaseSeconds: 30, owner: F.owner)
                .isEmpty
        )
        let others = try await store.claimDueDeliveries(
            appId: "app-b",
            now: later,
            limit: 10,
            leaseSeconds: 30,
            owner: F.owner
        )
        #expect(others.map(\.token) == [F.token(5)])
        // The relay that held the leases answers late: an ended delivery takes no result.
        let apns = try await F.ids(of: "deliveries WHERE app_id = 'app-a' AND token = '\(F.token(2).value)'", in: store)
        try await store.complete(apns.map { ($0, .sent) }, at: later)
        #expect(try await F.count(removed, in: store) == 3)
        // Nothing is left to end.
        #expect(
            try await store.endPendingWork(appId: "app-a", at: later)
                == EndedWork(deliveries: 0, badgeUpdates: 0, feedback: 0)
        )
        // An app the store holds nothing of (a mistyped id) is told apart from one with nothing left.
        #expect(
            try await store.endPendingWork(appId: "app-c", at: later)
                == EndedWork(deliveries: 0, badgeUpdates: 0, feedback: 0, appKnown: false)
        )
    }
}
