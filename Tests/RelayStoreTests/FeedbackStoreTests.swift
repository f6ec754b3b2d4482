import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

@Suite struct FeedbackStoreTests {
    typealias F = StoreFixtures

    /// bob has token 1 in app-a, carol token 2 in app-b; one notification each, claimed and answered 410.
    func storeWithRetirements(_ kind: StoreKind, policy: FeedbackPolicy) async throws -> any Store {
        let store = try await kind.makeStore()
        await store.setFeedbackPolicy(policy)
        try await store.register(F.token(1), user: "bob", app: "app-a", at: F.time(-10))
        try await store.register(F.token(2), user: "carol", app: "app-b", environment: .production, at: F.time(-10))
        _ = try await store.createNotification(F.notification(app: "app-a"), recipients: .init(roomId: "room-1"))
        _ = try await store.createNotification(F.notification(app: "app-b"), recipients: .init(roomId: "room-1"))
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.count == 2)
        try await store.complete(
            jobs.map { ($0.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(-5))) },
            at: F.time(1)
        )
        return store
    }

    @Test(arguments: StoreKind.allCases) func aRetirementQueuesFeedbackOnlyForAppsInThePolicy(
        kind: StoreKind
    ) async throws {
        let store = try await storeWithRetirements(
            kind,
            policy: FeedbackPolicy(appIds: ["app-a"], lifetimeSeconds: 600)
        )
        #expect(try await store.pendingFeedbackCount() == 1)
        let job = try #require(
            try await store.claimDueFeedback(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner).first
        )
        #expect(job.appId == "app-a" && job.token == F.token(1) && job.userId == "bob")
        #expect(job.token.scope == "sandbox" && job.reason == "Unregistered" && job.attempts == 0)
        #expect(job.invalidSince == F.time(-5) && job.retiredAt == F.time(1) && job.expiresAt == F.time(601))
    }

    /// A relay whose policy lacks an app (its configuration has no feedback URL for it, during a rolling
    /// change) leaves that app's queued items to the relays that have its URL.
    @Test(arguments: StoreKind.allCases) func onlyTheAppsInThePolicyAreClaimed(kind: StoreKind) async throws {
        let store = try await storeWithRetirements(
            kind,
            policy: FeedbackPolicy(appIds: ["app-a", "app-b"], lifetimeSeconds: 600)
        )
        #expect(try await store.pendingFeedbackCount() == 2)
        await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-b"], lifetimeSeconds: 600))
        let claimed = try await store.claimDueFeedback(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(claimed.map(\.appId) == ["app-b"])
        await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"], lifetimeSeconds: 600))
        let other = try await store.claimDueFeedback(now: F.time(2), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(other.map(\.appId) == ["app-a"])
    }

    @Test(arguments: StoreKind.allCases) func withoutAPolicyNothingIsQueued(kind: StoreKind) async throws {
        let store = try await storeWithRetirements(kind, policy: .none)
        #expect(try await store.pendingFeedbackCount() == 0)
        #expect(try await store.deviceCounts() == [.live: 0, .retired: 2])
    }

    @Test(arguments: StoreKind.allCases) func theFeedbackRowIsWrittenInTheRetiringTransaction(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"]))
        try await store.register(F.token(1), user: "bob", at: F.time(-10))
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner).first
        )
        // The queue refuses the row: the retirement must roll back with it.
        try await F.refuseFeedbackRows(in: store, true)
        await #expect(throws: StoreError.self) {
            try await store.complete(
                [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(1)))],
                at: F.time(1)
            )
        }
        #expect(try await store.device(appId: "app-a", token: F.token(1))?.state == .live)
        #expect(try await store.pendingDeliveryCount() == 1)
        try await F.refuseFeedbackRows(in: store, false)
        try await store.complete(
            [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(1)))],
            at: F.time(1)
        )
        #expect(try await store.device(appId: "app-a", token: F.token(1))?.state == .retired)
        #expect(try await store.pendingFeedbackCount() == 1)
        let queued = try #require(
            try await store.claimDueFeedback(now: F.time(2), limit: 1, leaseSeconds: 30, owner: F.owner).first
        )
        #expect(queued.invalidSince == F.time(1))
    }

    @Test(arguments: StoreKind.allCases) func leasesRetriesAndCompletion(kind: StoreKind) async throws {
        let store = try await storeWithRetirements(kind, policy: FeedbackPolicy(appIds: ["app-a", "app-b"]))
        let first = try await store.claimDueFeedback(now: F.time(1), limit: 1, leaseSeconds: 30, owner: F.owner)
        #expect(first.count == 1)
        let second = try await store.claimDueFeedback(now: F.time(2), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(second.count == 1 && second[0].feedbackId != first[0].feedbackId)
        #expect(try await store.claimDueFeedback(now: F.time(3), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty)
        // An expired lease makes the row claimable again; releaseLeases frees every row at once.
        #expect(
            try await store.claimDueFeedback(now: F.time(31.5), limit: 10, leaseSeconds: 30, owner: F.owner).map(
                \.feedbackId
            )
                == first.map(\.feedbackId)
        )
        try await store.releaseLeases(owner: F.owner)

        try await store.completeFeedback(
            [
                (first[0].feedbackId, .retry(at: F.time(100), status: 500, error: "HTTP 500")),
                (second[0].feedbackId, .delivered),
            ],
            at: F.time(40)
        )
        #expect(try await store.pendingFeedbackCount() == 1)
        #expect(try await store.claimDueFeedback(now: F.time(99), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty)
        let retried = try await store.claimDueFeedback(now: F.time(100), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(retried.map(\.feedbackId) == [first[0].feedbackId] && retried[0].attempts == 1)
        try await store.completeFeedback([(retried[0].feedbackId, .dropped)], at: F.time(101))
        #expect(try await store.pendingFeedbackCount() == 0)
        #expect(
            try await store.claimDueFeedback(now: F.time(10_000), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty
        )
    }

    @Test(arguments: StoreKind.allCases) func expiredItemsAreStillHandedOutForTheCallerToDrop(
        kind: StoreKind
    ) async throws {
        let store = try await storeWithRetirements(kind, policy: FeedbackPolicy(appIds: ["app-a"], lifetimeSeconds: 60))
        let job = try #require(
            try await store.claimDueFeedback(now: F.time(500), limit: 10, leaseSeconds: 30, owner: F.owner).first
        )
        #expect(job.expiresAt < F.time(500))
    }

    @Test(arguments: StoreKind.allCases) func deadTokensAreCappedOldestFirst(kind: StoreKind) async throws {
        let store = try await storeWithRetirements(kind, policy: .none)
        for n in 3...5 {
            try await store.register(F.token(n), user: "dave", app: "app-a", at: F.time(-10))
        }
        _ = try await store.createNotification(
            F.notification(app: "app-a", sender: "x"),
            recipients: .init(roomId: "room-1", userIds: ["dave"])
        )
        let jobs = try await store.claimDueDeliveries(now: F.time(10), limit: 10, leaseSeconds: 30, owner: F.owner)
        for (index, job) in jobs.enumerated() {
            try await store.complete(
                [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(1)))],
                at: F.time(20 + Double(index))
            )
        }
        let all = try await store.deadTokens(appId: "app-a", since: .distantPast, limit: 100)
        #expect(all.count == 4 && all.map { $0.retiredAt! } == all.map { $0.retiredAt! }.sorted())
        let capped = try await store.deadTokens(appId: "app-a", since: .distantPast, limit: 2)
        #expect(capped == Array(all.prefix(2)))
        #expect(try await store.deadTokens(appId: "app-a", since: F.time(21), limit: 100).count == 2)
    }

    @Test func migrationTwoUpgradesADatabaseMadeByMigrationOne() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            // A file as a build that knew only step 1 left it, with a device in it.
            try Self.oldDatabase(
                at: path,
                version: 1,
                rows: """
                    INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                    VALUES ('app-a', '\(F.token(1).value)', 'bob', 'sandbox', 0, 0)
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.appliedMigrations == SQLiteMigrations.steps.count - 1)
            #expect(store.schemaVersion == SQLiteMigrations.steps.count)
            #expect(try await store.device(appId: "app-a", token: F.token(1))?.userId == "bob")
            #expect(try await store.pendingFeedbackCount() == 0)
            await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"]))
            _ = try await store.createNotification(
                F.notification(),
                recipients: .init(roomId: "room-1", userIds: ["bob"])
            )
            let job = try #require(
                try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner).first
            )
            try await store.complete(
                [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(1)))],
                at: F.time(1)
            )
            #expect(try await store.pendingFeedbackCount() == 1)
        }
    }

    /// A version-2 file with a delivery in flight when it stopped (leased in the old way) upgrades to
    /// step 3 and hands that delivery out again once leases are released.
    @Test func migrationThreeKeepsTheDeliveriesOfAVersionTwoDatabase() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v2.sqlite").path
            let t0 = Int64(F.t0.timeIntervalSince1970 * 1000)
            try Self.oldDatabase(
                at: path,
                version: 2,
                rows: """
                    INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                    VALUES ('app-a', '\(F.token(1).value)', 'bob', 'sandbox', \(t0), \(t0));
                    INSERT INTO notifications (id, app_id, kind, room_id, sender_id, topic, push_type, priority,
                        payload, created_at)
                    VALUES ('0b5c4a8e-3f7e-4c1e-9a43-2f1d6b8e9c01', 'app-a', 'message', 'room-1', 'alice',
                        'com.example.chat', 'alert', 10, x'7b7d', \(t0));
                    INSERT INTO deliveries (notification_id, app_id, token, status, attempts, created_at,
                        updated_at, next_attempt_at, lease_until)
                    VALUES ('0b5c4a8e-3f7e-4c1e-9a43-2f1d6b8e9c01', 'app-a', '\(F.token(1).value)', 'pending', 0,
                        \(t0), \(t0), \(t0), \(t0 + 120_000));
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.schemaVersion == SQLiteMigrations.steps.count && SQLiteMigrations.steps.count >= 3)
            try await store.releaseLeases(owner: F.owner)
            #expect(try await store.appsWithDueDeliveries(now: F.t0) == ["app-a"])
            let jobs = try await store.claimDueDeliveries(
                appId: "app-a",
                now: F.t0,
                limit: 10,
                leaseSeconds: 30,
                owner: F.owner
            )
            #expect(jobs.map(\.token) == [F.token(1)] && jobs.first?.token.scope == "sandbox")
        }
    }

    /// Step 4 rebuilds the deliveries table: a version-3 file keeps every delivery with its id and fields, the
    /// pending one is claimed, the finished one counts as sent, and new deliveries continue the ids.
    @Test func migrationFourKeepsEveryDeliveryOfAVersionThreeDatabase() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v3.sqlite").path
            let t0 = Int64(F.t0.timeIntervalSince1970 * 1000)
            let notificationId = "0b5c4a8e-3f7e-4c1e-9a43-2f1d6b8e9c01"
            try Self.oldDatabase(
                at: path,
                version: 3,
                rows: """
                    INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                    VALUES ('app-a', '\(F.token(1).value)', 'bob', 'sandbox', \(t0), \(t0)),
                        ('app-a', '\(F.token(2).value)', 'carol', 'production', \(t0), \(t0));
                    INSERT INTO notifications (id, app_id, kind, room_id, sender_id, topic, push_type, priority,
                        payload, created_at)
                    VALUES ('\(notificationId)', 'app-a', 'message', 'room-1', 'alice', 'com.example.chat', 'alert',
                        10, x'7b7d', \(t0));
                    INSERT INTO deliveries (id, notification_id, app_id, token, status, attempts, last_status,
                        created_at, updated_at, sent_at, next_attempt_at)
                    VALUES (41, '\(notificationId)', 'app-a', '\(F.token(2).value)', 'sent', 1, 200, \(t0), \(t0),
                        \(t0), NULL),
                        (42, '\(notificationId)', 'app-a', '\(F.token(1).value)', 'pending', 0, NULL, \(t0), \(t0),
                        NULL, \(t0));
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.appliedMigrations == SQLiteMigrations.steps.count - 3)
            let jobs = try await store.claimDueDeliveries(
                appId: "app-a",
                now: F.t0,
                limit: 10,
                leaseSeconds: 30,
                owner: F.owner
            )
            #expect(jobs.map(\.deliveryId) == [42] && jobs.first?.token == F.token(1))
            let id = try #require(UUID(uuidString: notificationId))
            let view = try #require(try await store.notification(appId: "app-a", id: id, limit: 10))
            #expect(view.summary.counts.sent == 1 && view.summary.counts.pending == 1)
            #expect(view.deliveries.first { $0.status == .sent }?.attempts == 1)
            let next = try await store.createNotification(
                F.notification(),
                recipients: .init(roomId: "room-1", userIds: ["carol"])
            )
            #expect(next.devices == 1)
            let newJobs = try await store.claimDueDeliveries(
                appId: "app-a",
                now: F.t0,
                limit: 10,
                leaseSeconds: 30,
                owner: F.owner
            )
            #expect(newJobs.map(\.deliveryId) == [43])
            // Step 5: each notification reads its own run of delivery ids, old (filled by the step) and new.
            #expect(view.deliveries.map(\.deliveryId) == [41, 42])
            let newView = try #require(try await store.notification(appId: "app-a", id: next.notificationId, limit: 10))
            #expect(newView.deliveries.map(\.deliveryId) == [43] && newView.summary.counts.pending == 1)
        }
    }

    /// A database file as a build that knew only the first `version` migration steps left it, holding `rows`.
    static func oldDatabase(at path: String, version: Int, rows: String) throws {
        let old = try SQLiteConnection(path: path)
        try old.execute("PRAGMA journal_mode = WAL")
        for step in SQLiteMigrations.steps.prefix(version) { try old.execute(step) }
        try old.execute("PRAGMA user_version = \(version)")
        try old.execute(rows)
        old.close()
    }
}
