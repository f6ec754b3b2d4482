import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// ``Store/finishedNotificationCounts(_:)`` on both engines: a notification is reported, with its deliveries
/// counted by status, only once none is pending; the deliveries view names each delivery's platform.
@Suite struct FinishedNotificationTests {
    typealias F = StoreFixtures

    @Test(arguments: StoreKind.allCases) func aNotificationIsFinishedOnceNoDeliveryIsPending(
        kind: StoreKind
    )
        async throws
    {
        let store = try await kind.makeStore()
        for n in 0..<3 { try await store.register(F.token(n), user: "u\(n)", at: F.time(-10)) }
        let other = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let id = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            .notificationId
        let jobs = try await store.claimDueDeliveries(now: F.time(0), limit: 10, leaseSeconds: 30, owner: F.owner)
            .filter { $0.notificationId == id }
        try #require(jobs.count == 3)
        try await store.complete(
            [
                (jobs[0].deliveryId, .sent),
                (jobs[1].deliveryId, .retry(at: F.time(5), status: 429, reason: "TooManyRequests")),
                (jobs[2].deliveryId, .failed(status: 400, reason: "BadDeviceToken")),
            ],
            at: F.time(1)
        )
        #expect(try await store.finishedNotificationCounts([id, other.notificationId]).isEmpty, "one is pending")

        let retried = try await store.claimDueDeliveries(now: F.time(6), limit: 10, leaseSeconds: 30, owner: F.owner)
            .filter { $0.notificationId == id }
        #expect(retried.map(\.deliveryId) == [jobs[1].deliveryId])
        try await store.complete(
            [(jobs[1].deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(2)))],
            at: F.time(7)
        )
        let finished = try await store.finishedNotificationCounts([id, id, other.notificationId, UUID()])
        #expect(finished == [id: DeliveryCounts(pending: 0, sent: 1, failed: 1, retired: 1)])
    }

    @Test(arguments: StoreKind.allCases) func theDeliveriesViewNamesEachPlatform(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob", at: F.time(-10))
        try await store.register(F.fcmToken(2), user: "carol", at: F.time(-10))
        let id = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            .notificationId
        let deliveries = try #require(try await store.notification(appId: "app-a", id: id)).deliveries
        let platforms = Dictionary(uniqueKeysWithValues: deliveries.map { ($0.token, $0.platform) })
        #expect(platforms == [F.token(1).value: .ios, F.fcmToken(2).value: .android])
        #expect(deliveries.map { $0.sentPlatform == .ios } == deliveries.map { $0.token == F.token(1).value })
    }
}
