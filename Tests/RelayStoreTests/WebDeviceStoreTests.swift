import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// Web devices on every engine: a device's subscription (``RelayCore/PushToken/address``) is stored beside
/// its identity and comes back wherever the token is read (devices, claims, dead tokens, feedback, copies);
/// a web device gets no badge update and no removal.
@Suite struct WebDeviceStoreTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests
    typealias B = BadgeUpdateStoreTests

    @Test(arguments: StoreKind.allCases) func theSubscriptionComesBackWhereverTheTokenIsRead(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"]))
        let first = F.webToken(1, keys: "k1"), renewed = F.webToken(1, keys: "k2")
        let (device, created) = try await store.register(first, user: "bob", environment: .production)
        #expect(created && device.platform == .web && device.token.address == first.address)
        // The browser renewed its keys for the same endpoint: the same device, the new subscription.
        let (again, createdAgain) = try await store.register(renewed, user: "bob", environment: .production)
        #expect(!createdAgain && again.token.address == renewed.address && renewed.address != first.address)
        #expect(try await store.device(appId: "app-a", token: F.webToken(1))?.token.address == renewed.address)
        #expect(try await store.devices(appId: "app-a", userId: "bob").map(\.token.address) == [renewed.address])
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner).first
        )
        #expect(job.token.platform == .web && job.token.address == renewed.address)
        try await store.complete(
            [(job.deliveryId, .retired(status: 410, reason: "Gone", invalidSince: F.t0))],
            at: F.t0
        )
        let dead = try await store.deadTokens(appId: "app-a", since: F.t0)
        #expect(dead.map(\.token.address) == [renewed.address] && dead.first?.state == .retired)
        let feedback = try #require(
            try await store.claimDueFeedback(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner).first
        )
        #expect(feedback.token == F.webToken(1) && feedback.token.address == renewed.address)
        // An APNs or FCM device keeps none.
        #expect(try await store.register(F.token(2), user: "carol").device.token.address == nil)
        #expect(try await store.register(F.fcmToken(3), user: "dan").device.token.address == nil)
    }

    @Test(arguments: StoreKind.allCases) func aWebDeviceGetsNoBadgeUpdate(kind: StoreKind) async throws {
        let (store, now) = try await B.store(kind)
        try await store.register(F.webToken(2), user: "bob", environment: .production)
        try await B.read(store, "bob", at: 1)
        #expect(try await F.count("badge_updates", in: store) == 2)
        #expect(Set(try await B.claim(store, at: now).map(\.token)) == [F.token(2), F.fcmToken(2)])
    }

    @Test(arguments: StoreKind.allCases) func aDeleteSendsNoRemovalToAWebDevice(kind: StoreKind) async throws {
        let store = try await D.store(kind)
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        // bob has a phone (token 1) and a browser; carol only a browser (her phone, token 2, is deleted).
        try await store.register(F.webToken(7), user: "bob", rooms: [], environment: .production)
        try await store.register(F.webToken(8), user: "carol", rooms: [], environment: .production)
        #expect(try await store.deleteDevice(appId: "app-a", token: F.token(2)))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.user("carol", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.message("m-1", txn: 2, ageSeconds: 10),
                try D.message("m-2", txn: 3, from: "bob", ageSeconds: 10),
            ],
            to: store
        )
        let jobs = try await GraceWindowStoreTests.claim(store, at: D.at)
        #expect(Set(jobs.map(\.token)) == [F.token(1), F.webToken(7), F.webToken(8)])
        try await store.complete(jobs.map { ($0.deliveryId, .sent) }, at: D.at)
        try await D.apply(
            [
                try GraceWindowStoreTests.delete("d-1", of: "m-1", txn: 4),
                try GraceWindowStoreTests.delete("d-2", of: "m-2", txn: 5, from: "bob"),
            ],
            to: store
        )
        // m-1 reached a phone and two browsers: the phone alone gets the removal.
        let removals = try await GraceWindowStoreTests.deliveries(store, messageId: "d-1").byToken
        #expect(Set(removals.keys) == [F.token(1)])
        #expect(try await GraceWindowStoreTests.claim(store, at: D.at).map(\.token) == [F.token(1)])
        // m-2 reached only carol's browser: no removal at all.
        #expect(try await store.notificationId(appId: "app-a", messageId: "d-2") == nil)
    }

    /// `storage copy` carries the subscriptions of devices and feedback from SQLite to PostgreSQL and back.
    @Test func aCopyCarriesTheSubscriptionBothWays() async throws {
        let source = try SQLiteStore.temporary()
        await source.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"]))
        try await source.register(F.webToken(1), user: "bob", environment: .production)
        try await source.register(F.webToken(2), user: "carol", environment: .production)
        try await source.register(F.token(3), user: "dan")
        _ = try await source.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let jobs = try await source.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        let carol = try #require(jobs.first { $0.token == F.webToken(2) })
        try await source.complete(
            [(carol.deliveryId, .retired(status: 404, reason: "Gone", invalidSince: F.t0))],
            at: F.t0
        )
        let postgres = try #require(try await StoreKind.postgres.makeStore() as? PostgresStore)
        _ = try await StoreCopy(batchSize: 10).run(from: source, to: postgres)
        let back = try SQLiteStore.temporary()
        _ = try await StoreCopy(batchSize: 10).run(from: postgres, to: back)
        for store in [postgres, back] as [any Store] {
            #expect(
                try await store.device(appId: "app-a", token: F.webToken(1))?.token.address == F.webToken(1).address
            )
            #expect(
                try await store.device(appId: "app-a", token: F.webToken(2))?.token.address == F.webToken(2).address
            )
            #expect(try await store.device(appId: "app-a", token: F.token(3))?.token.address == nil)
            await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"]))
            let feedback = try await store.claimDueFeedback(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner)
            #expect(feedback.map(\.token.address) == [F.webToken(2).address])
        }
    }

    /// A version-24 file keeps its devices through step 25, which takes web devices.
    @Test func aVersionTwentyFourDatabaseKeepsItsDevicesAndTakesWebOnes() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v24.sqlite").path
            let t0 = Int64(F.t0.timeIntervalSince1970 * 1000)
            try FeedbackStoreTests.oldDatabase(
                at: path,
                version: 24,
                rows: """
                    INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at, platform)
                    VALUES ('app-a', '\(F.fcmToken(1).value)', 'bob', 'production', \(t0), \(t0), 'android');
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.schemaVersion == SQLiteMigrations.steps.count)
            let device = try #require(try await store.device(appId: "app-a", token: F.fcmToken(1)))
            #expect(device.platform == .android && device.userId == "bob" && device.token.address == nil)
            try await store.register(F.webToken(2), user: "bob", environment: .production)
            #expect(try await store.devices(appId: "app-a", userId: "bob").map(\.platform) == [.android, .web])
        }
    }
}
