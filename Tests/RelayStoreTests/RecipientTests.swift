import Foundation
import RelayCore
import Testing

@testable import RelayStore

@Suite struct RecipientTests {
    typealias F = StoreFixtures

    /// alice (sender: tokens 1, 2), bob (3, 4), carol muted (5), dave in another room (6), erin retired (7).
    func populatedStore(_ kind: StoreKind) async throws -> any Store {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "alice")
        try await store.register(F.token(3), user: "bob")
        try await store.register(F.token(4), user: "bob", environment: .production)
        try await store.register(F.token(5), user: "carol")
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "carol", notify: .set(.none), at: F.t0)
        try await store.register(F.token(6), user: "dave", rooms: ["room-2"])
        try await store.register(F.token(7), user: "erin")
        let retire = try await store.createNotification(
            F.notification(messageId: nil),
            recipients: .init(roomId: "room-1", userIds: ["erin"])
        )
        #expect(retire.devices == 1)
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 1, owner: F.owner).first
        )
        try await store.complete(
            [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(1)))],
            at: F.t0
        )
        return store
    }

    @Test(arguments: StoreKind.allCases) func roomMembersMinusSenderMutedAndRetired(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        let outcome = try await store.createNotification(
            F.notification(),
            recipients: .init(roomId: "room-1", excludeUserId: "alice")
        )
        #expect(outcome.devices == 2)
        #expect(try await store.pendingTokens(of: outcome.notificationId) == [F.token(3), F.token(4)])
    }

    @Test(arguments: StoreKind.allCases) func excludeTokenDropsTheSendingDeviceWhoeverOwnsIt(
        kind: StoreKind
    ) async throws {
        let store = try await populatedStore(kind)
        let outcome = try await store.createNotification(
            F.notification(),
            recipients: .init(roomId: "room-1", excludeToken: F.token(2))
        )
        #expect(try await store.pendingTokens(of: outcome.notificationId) == [F.token(1), F.token(3), F.token(4)])
        let both = try await store.createNotification(
            F.notification(),
            recipients: .init(roomId: "room-1", excludeUserId: "bob", excludeToken: F.token(1))
        )
        #expect(try await store.pendingTokens(of: both.notificationId) == [F.token(2)])
    }

    /// A user's recipients (`overridesLevels` false) leave out the members who muted the room, and only that
    /// room's mute counts.
    @Test(arguments: StoreKind.allCases) func aUsersRecipientsLeaveOutMembersWhoMutedTheRoom(
        kind: StoreKind
    ) async throws {
        let store = try await populatedStore(kind)
        let outcome = try await store.createNotification(
            F.notification(),
            recipients: .init(
                roomId: "room-1",
                userIds: ["carol", "bob"],
                overridesLevels: false,
                excludeUserId: "alice"
            )
        )
        #expect(outcome.devices == 2)
        #expect(try await store.pendingTokens(of: outcome.notificationId) == [F.token(3), F.token(4)])
        let otherRoom = try await store.createNotification(
            F.notification(room: "room-2"),
            recipients: .init(roomId: "room-2", userIds: ["carol", "dave"], overridesLevels: false)
        )
        #expect(try await store.pendingTokens(of: otherRoom.notificationId) == [F.token(5), F.token(6)])
    }

    @Test(arguments: StoreKind.allCases) func explicitRecipientsIgnoreMuteAndRoomAndGetEachTokenOnce(
        kind: StoreKind
    ) async throws {
        let store = try await populatedStore(kind)
        let outcome = try await store.createNotification(
            F.notification(),
            recipients: .init(
                roomId: "room-1",
                userIds: ["carol", "dave", "bob", "bob", "alice", "erin", "nobody"],
                excludeUserId: "alice"
            )
        )
        #expect(outcome.devices == 4)
        #expect(
            try await store.pendingTokens(of: outcome.notificationId) == [
                F.token(3), F.token(4), F.token(5), F.token(6),
            ]
        )
    }

    @Test(arguments: StoreKind.allCases) func anUnlinkedTopicGetsNoMoreDeliveries(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        let first = try await store.createNotification(
            F.notification(sendAs: "com.example.chat"),
            recipients: .init(roomId: "room-1", userIds: ["bob"])
        )
        let second = try await store.createNotification(
            F.notification(sendAs: "com.example.chat"),
            recipients: .init(roomId: "room-1", userIds: ["bob"])
        )
        #expect(first.devices == 2 && second.devices == 2)
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner)
        let job = try #require(jobs.first)
        try await store.complete(
            [(job.deliveryId, .unlink(sendAs: "com.example.chat", status: 400, reason: "DeviceTokenNotForTopic"))],
            at: F.time(1)
        )
        let device = try #require(try await store.device(appId: "app-a", token: job.token))
        #expect(device.token.unlinked == ["com.example.chat"] && device.state == .live)
        // Its other pending delivery for that topic fails when claimed; the other device's is handed out.
        let next = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(!next.contains { $0.token == job.token })
        let (summary, deliveries) = try #require(
            try await store.notification(appId: "app-a", id: second.notificationId)
        )
        #expect(summary.counts == DeliveryCounts(pending: 1, failed: 1))
        #expect(deliveries.first { $0.token == job.token.value }?.lastReason == "DeviceTokenNotForTopic")

        let other = job.token == F.token(3) ? F.token(4) : F.token(3)
        let later = try await store.createNotification(
            F.notification(sendAs: "com.example.chat"),
            recipients: .init(roomId: "room-1", userIds: ["bob"])
        )
        #expect(try await store.pendingTokens(of: later.notificationId) == [other])
        let otherTopic = try await store.createNotification(
            F.notification(sendAs: "com.example.chat.voip"),
            recipients: .init(roomId: "room-1", userIds: ["bob"])
        )
        #expect(otherTopic.devices == 2)
        // Re-registering clears the unlinked topics.
        try await store.register(job.token, user: "bob", at: F.time(2))
        #expect(try await store.device(appId: "app-a", token: job.token)?.token.unlinked == [])
    }

    @Test(arguments: StoreKind.allCases) func aDuplicateWebhookReturnsTheFirstIdAndInsertsNothing(
        kind: StoreKind
    ) async throws {
        let store = try await populatedStore(kind)
        let first = try await store.createNotification(
            F.notification(messageId: "msg-1"),
            recipients: .init(roomId: "room-1", excludeUserId: "alice")
        )
        let pending = try await store.pendingDeliveryCount()
        try await store.register(F.token(8), user: "frank")  // would change the recipients
        var retry = F.notification(messageId: "msg-1")
        retry.id = UUID()
        let duplicate = try await store.createNotification(retry, recipients: .init(roomId: "room-1"))
        #expect(duplicate == .duplicate(notificationId: first.notificationId, devices: 2))
        #expect(try await store.pendingDeliveryCount() == pending)
        #expect(try await store.notification(appId: "app-a", id: retry.id) == nil)

        // Without a message id it is a new notification.
        #expect(
            try await store.createNotification(F.notification(messageId: nil), recipients: .init(roomId: "room-1"))
                .devices == 5
        )
    }

    @Test(arguments: StoreKind.allCases) func deliveriesGetDistinctCanonicalV4ApnsIds(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let (summary, deliveries) = try #require(
            try await store.notification(appId: "app-a", id: outcome.notificationId)
        )
        #expect(summary.counts.pending == 4 && deliveries.count == 4)
        #expect(Set(deliveries.map(\.pushId)).count == 4)
        let raw = deliveries.map { $0.pushId.uuidString.lowercased() }
        let pattern = #/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/#
        for id in raw { #expect(id.wholeMatch(of: pattern) != nil, "\(id)") }
        let again = try #require(try await store.notification(appId: "app-a", id: outcome.notificationId))
        #expect(again.deliveries.map(\.pushId) == deliveries.map(\.pushId), "derived the same every time")
        let jobs = try await store.claimDueDeliveries(
            now: Date(timeIntervalSince1970: 4_000_000_000),
            limit: 10,
            leaseSeconds: 30,
            owner: F.owner
        )
        #expect(Set(jobs.map(\.pushId)) == Set(deliveries.map(\.pushId)), "the dispatcher sends the ids the API shows")
        let limited = try #require(try await store.notification(appId: "app-a", id: outcome.notificationId, limit: 2))
        #expect(limited.deliveries.count == 2 && limited.summary.counts.total == 4)
    }
}
