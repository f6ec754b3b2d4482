import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

@Suite struct DeviceTests {
    typealias F = StoreFixtures

    @Test(arguments: StoreKind.allCases) func upsertCreatesThenUpdatesThenRevives(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let token = F.token(1)

        let first = try await store.register(token, user: "alice", rooms: ["r1", "r2"], environment: .sandbox)
        #expect(first.created)
        #expect(first.device.state == .live)
        #expect(first.device.createdAt == F.t0 && first.device.updatedAt == F.t0)
        #expect(try await store.members(appId: "app-a", roomId: "r2").map(\.userId) == ["alice"])

        let second = try await store.register(
            token,
            user: "bob",
            rooms: ["r1"],
            environment: .production,
            at: F.time(60)
        )
        #expect(!second.created)
        #expect(second.device.userId == "bob" && second.device.token.scope == "production")
        // A move to another user dates the device from the move: bob is not told when alice registered it.
        #expect(second.device.createdAt == F.time(60) && second.device.updatedAt == F.time(60))
        #expect(try await store.members(appId: "app-a", roomId: "r1").map(\.userId) == ["alice", "bob"])

        // Retire it through a 410 on a delivery, then register again.
        let created = try await store.createNotification(
            F.notification(room: "r1", sender: "alice", at: F.time(61)),
            recipients: RecipientSelection(roomId: "r1", excludeUserId: "alice")
        )
        #expect(created.devices == 1)
        let jobs = try await store.claimDueDeliveries(now: F.time(62), limit: 10, leaseSeconds: 30, owner: F.owner)
        try await store.complete(
            [(jobs[0].deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(61)))],
            at: F.time(63)
        )
        let retired = try #require(try await store.device(appId: "app-a", token: token))
        #expect(retired.state == .retired && retired.retiredReason == "Unregistered")
        #expect(retired.retiredAt == F.time(63) && retired.invalidSince == F.time(61))
        #expect(try await store.deadTokens(appId: "app-a", since: F.time(63)).map(\.token) == [token])
        #expect(try await store.deadTokens(appId: "app-a", since: F.time(64)).isEmpty)

        let revived = try await store.register(token, user: "bob", at: F.time(100))
        #expect(!revived.created)
        #expect(revived.device.state == .live)
        #expect(revived.device.retiredAt == nil && revived.device.retiredReason == nil)
        #expect(revived.device.invalidSince == nil && revived.device.updatedAt == F.time(100))
        // bob's own token again: its date stays.
        #expect(revived.device.createdAt == F.time(60))
        #expect(try await store.deviceCounts() == [.live: 1, .retired: 0])
    }

    @Test(arguments: StoreKind.allCases) func aRetiredTokenReceivesNothingUntilRevived(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob")
        let retireNow = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner).first
        )
        try await store.complete(
            [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(1)))],
            at: F.t0
        )
        #expect(retireNow.devices == 1)

        let none = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(none.devices == 0)
        try await store.register(F.token(1), user: "bob", at: F.time(5))
        let again = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(again.devices == 1)
    }

    @Test(arguments: StoreKind.allCases) func deleteDeviceFailsItsPendingDeliveries(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob")
        try await store.register(F.token(2), user: "carol")
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(outcome.devices == 2)

        #expect(try await store.deleteDevice(appId: "app-a", token: F.token(1)))
        #expect(try await !store.deleteDevice(appId: "app-a", token: F.token(1)))
        #expect(try await store.device(appId: "app-a", token: F.token(1)) == nil)
        // Ended when next claimed: only the other device's delivery is handed out.
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.map(\.token) == [F.token(2)])
        let (summary, deliveries) = try #require(
            try await store.notification(appId: "app-a", id: outcome.notificationId)
        )
        #expect(summary.counts == DeliveryCounts(pending: 1, failed: 1))
        #expect(deliveries.first { $0.token == F.token(1).value }?.lastReason == "DeviceDeleted")
        #expect(try await store.pendingDeliveryCount() == 1)
    }

    /// A token registered again for another user between the webhook and the send: the old user's message does
    /// not reach the device's new user; registered again for the same user, it goes to the new environment.
    @Test(arguments: StoreKind.allCases) func aDeviceThatChangedUsersDoesNotGetTheOldUsersMessage(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob")
        try await store.register(F.token(2), user: "carol")
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(outcome.devices == 2)
        try await store.register(F.token(1), user: "dave", at: F.time(1))
        try await store.register(F.token(2), user: "carol", environment: .production, at: F.time(1))
        let jobs = try await store.claimDueDeliveries(now: F.time(2), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.map(\.token) == [F.token(2)] && jobs.first?.token.scope == "production")
        let (_, deliveries) = try #require(try await store.notification(appId: "app-a", id: outcome.notificationId))
        #expect(deliveries.first { $0.token == F.token(1).value }?.lastReason == "DeviceDeleted")
    }

    @Test(arguments: StoreKind.allCases) func membersAreIdempotentAndKeepTheirLevel(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let joined = try await store.addMember(appId: "app-a", roomId: "r", userId: "u", at: F.t0)
        #expect(joined == RoomMember(userId: "u", notify: nil, joinedAt: F.t0))
        try await store.addMember(appId: "app-a", roomId: "r", userId: "u", notify: .set(.none), at: F.time(5))
        let kept = try await store.addMember(appId: "app-a", roomId: "r", userId: "u", notify: nil, at: F.time(9))
        #expect(kept == RoomMember(userId: "u", notify: NotifyLevel.none, joinedAt: F.t0))
        // Registering with the room again keeps the level.
        try await store.register(F.token(1), user: "u", rooms: ["r"])
        #expect(try await store.members(appId: "app-a", roomId: "r") == [kept])
        #expect(try await store.removeMember(appId: "app-a", roomId: "r", userId: "u"))
        #expect(try await !store.removeMember(appId: "app-a", roomId: "r", userId: "u"))
        #expect(try await store.members(appId: "app-a", roomId: "r").isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func appsAreIsolated(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let token = F.token(1)
        try await store.register(token, user: "alice", app: "app-a", rooms: ["room-1"])
        try await store.register(F.token(2), user: "bob", app: "app-a", rooms: ["room-1"])
        let a = try await store.createNotification(
            F.notification(app: "app-a", messageId: "m1"),
            recipients: .init(roomId: "room-1")
        )

        // App B sees none of app A's rows, under the same ids.
        #expect(try await store.device(appId: "app-b", token: token) == nil)
        #expect(try await store.devices(appId: "app-b", userId: "alice").isEmpty)
        #expect(try await store.members(appId: "app-b", roomId: "room-1").isEmpty)
        #expect(try await store.notification(appId: "app-b", id: a.notificationId) == nil)
        #expect(try await !store.deleteDevice(appId: "app-b", token: token))
        #expect(try await !store.removeMember(appId: "app-b", roomId: "room-1", userId: "alice"))
        let b = try await store.createNotification(
            F.notification(app: "app-b", messageId: "m1"),
            recipients: .init(roomId: "room-1")
        )
        #expect(b == .created(notificationId: b.notificationId, devices: 0))
        let bExplicit = try await store.createNotification(
            F.notification(app: "app-b", messageId: "m2"),
            recipients: .init(roomId: "room-1", userIds: ["alice", "bob"])
        )
        #expect(bExplicit.devices == 0)

        // The same token registered in app B is a separate device.
        let inB = try await store.register(token, user: "zed", app: "app-b", rooms: ["room-1"])
        #expect(inB.created)
        #expect(try await store.device(appId: "app-a", token: token)?.userId == "alice")
        #expect(try await store.devices(appId: "app-a", userId: "alice").count == 1)
        #expect(try await store.deviceCounts() == [.live: 3, .retired: 0])
    }

    @Test func migrationsRunOnceAndDataSurvivesReopening() async throws {
        try await F.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("nested/dir/push-relay.sqlite").path
            let notificationId: UUID
            do {
                let store = try SQLiteStore(path: path, logger: .disabled())
                #expect(store.appliedMigrations == SQLiteMigrations.steps.count)
                try await store.register(F.token(1), user: "bob")
                notificationId = try await store.createNotification(
                    F.notification(messageId: "m1"),
                    recipients: .init(roomId: "room-1")
                ).notificationId
                _ = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 60, owner: F.owner)
                try await store.checkWritable()
            }
            let reopened = try SQLiteStore(path: path, logger: .disabled())
            #expect(reopened.appliedMigrations == 0)
            #expect(reopened.schemaVersion == SQLiteMigrations.steps.count)
            #expect(try await reopened.device(appId: "app-a", token: F.token(1))?.userId == "bob")
            #expect(try await reopened.members(appId: "app-a", roomId: "room-1").map(\.userId) == ["bob"])
            let again = try await reopened.createNotification(
                F.notification(messageId: "m1"),
                recipients: .init(roomId: "room-1")
            )
            #expect(again == .duplicate(notificationId: notificationId, devices: 1))
            // The lease survived the restart; releaseLeases makes the delivery claimable at once.
            #expect(
                try await reopened.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 60, owner: F.owner).isEmpty
            )
            try await reopened.releaseLeases(owner: F.owner)
            #expect(
                try await reopened.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 60, owner: F.owner).count == 1
            )
            try await reopened.checkWritable()
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() async throws {
        try await F.withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("junk.sqlite").path
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
            #expect { try SQLiteStore(path: path, logger: .disabled()) } throws: { error in
                (error as? StoreError)?.code == .corrupt
            }
        }
    }
}
