import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// What only ``RelayPostgres/PostgresStore`` does: migrating under the advisory lock, connecting, its thread,
/// and claims of several relays running at the same time.
@Suite struct PostgresStoreTests {
    typealias F = StoreFixtures

    /// The relay's sessions name themselves in `pg_stat_activity`, unless the URL names them otherwise.
    @Test func sessionsCarryTheRelaysApplicationName() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let named = try PostgresConnection(url: url)
        #expect(try named.query("SHOW application_name")[0].string(0) == "push-relay")
        let own = try PostgresConnection(url: url + "&application_name=relay-a")
        #expect(try own.query("SHOW application_name")[0].string(0) == "relay-a")
    }

    /// Relays starting at once on a new database: one applies the steps, the others wait on the lock and
    /// find the schema current; a later start applies nothing.
    @Test func migrationsRunOnceWhenRelaysStartAtOnce() async throws {
        let cluster = try await PostgresCluster.shared()
        print("[PostgresStoreTests] the cluster started in \(cluster.startSeconds) seconds")
        let url = try await cluster.newDatabaseURL()
        let applied = try await withThrowingTaskGroup(of: (applied: Int, version: Int).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await Self.onThread {
                        let store = try PostgresStore(url: url, logger: .disabled())
                        return (store.appliedMigrations, store.schemaVersion)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let steps = PostgresMigrations.steps.count
        #expect(applied.map(\.applied).sorted() == [0, 0, 0, steps])
        #expect(applied.allSatisfy { $0.version == steps })
        #expect(try PostgresStore(url: url, logger: .disabled()).appliedMigrations == 0)
    }

    @Test func aSchemaNewerThanThisBuildIsRefused() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let store = try PostgresStore(url: url, logger: .disabled())
        try await store.execute("UPDATE relay_schema_version SET version = version + 1")
        #expect { try PostgresStore(url: url, logger: .disabled()) } throws: { error in
            (error as? StoreError)?.code == .migration
        }
    }

    /// A value the server cannot keep (SQLSTATE class 22) is a data refusal, which the Ditto
    /// consumer skips instead of pausing for ever; a lost connection stays transient.
    @Test func aValueTheServerCannotKeepIsInvalidData() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let store = try PostgresStore(url: url, logger: .disabled())
        await #expect {
            try await store.execute(#"SELECT '"\u0000"'::jsonb"#)
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .invalidData && error?.refusesData == true && error?.isTransient == false
        }
        // Class 54 is not: its 54000 is also the whole database refusing writes, which pauses the stream.
        let long = (0..<90).map { _ in UUID().uuidString }.joined()
        await #expect {
            try await store.execute("INSERT INTO ditto_users (app_id, user_id) VALUES ('a', '\(long)')")
        } throws: { error in
            (error as? StoreError)?.refusesData == false
        }
    }

    @Test func aServerThatCannotBeReachedIsReportedAsOpen() async throws {
        let url = "postgresql://postgres@/postgres?host=/nonexistent-\(UUID().uuidString)&connect_timeout=2"
        #expect { try PostgresStore(url: url, logger: .disabled()) } throws: { error in
            (error as? StoreError)?.code == .open
        }
    }

    @Test func storeCallsRunOnTheStoreThread() async throws {
        let store = try await StoreKind.postgres.makeStore()
        let postgres = try #require(store as? PostgresStore)
        #expect(!postgres.isOnStoreThread)
        #expect(await postgres.onStoreThread())
    }

    /// Four relays claim one fan-out at the same time, in small batches: `SKIP LOCKED` and the leases give
    /// every delivery to exactly one of them.
    @Test func concurrentClaimsOfSeveralRelaysNeverOverlap() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        let stores = try (0..<4).map { _ in try database.open() }
        for n in 0..<200 { try await stores[0].register(F.token(n), user: "u\(n)") }
        _ = try await stores[0].createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for store in stores {
                group.addTask {
                    var mine: [Int64] = []
                    while true {
                        let jobs = try await store.claimDueDeliveries(
                            now: F.t0,
                            limit: 7,
                            leaseSeconds: 60,
                            owner: F.owner
                        )
                        if jobs.isEmpty { return mine }
                        mine += jobs.map(\.deliveryId)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let all = claimed.flatMap { $0 }
        #expect(all.count == 200 && Set(all).count == 200)
    }

    /// A connection the server ends (a restart, an administrator) while idle is opened again by the call
    /// that finds it gone, which then succeeds: nothing of it had run.
    @Test func aConnectionTheServerEndsIsOpenedAgain() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        let relay = try #require(try database.open() as? PostgresStore)
        let admin = try #require(try database.open() as? PostgresStore)
        try await relay.register(F.token(1), user: "bob")
        let pid = try await relay.backendPid()
        #expect(try await admin.terminateBackend(pid))
        #expect(try await relay.deviceCounts() == [.live: 1, .retired: 0])
        #expect(try await relay.backendPid() != pid)
    }

    /// A statement run prepared is prepared once a session, and again in the session that replaces one the
    /// server ended.
    @Test func aPreparedStatementIsPreparedOnceASessionAndAgainInTheNext() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        let relay = try #require(try database.open() as? PostgresStore)
        let admin = try #require(try database.open() as? PostgresStore)
        // Recording an accepted push runs prepared (``PostgresStore/recordSentSQL``).
        try await relay.complete([(1, .sent)], at: F.t0)
        try await relay.complete([(1, .sent)], at: F.t0)
        #expect(try await relay.rowCount("pg_prepared_statements") == 1)
        try await relay.execute(
            "INSERT INTO deliveries (notification_id, app_id, user_id, token) VALUES (gen_random_uuid(), 'a', 'u', 't')"
        )
        #expect(try await admin.terminateBackend(try await relay.backendPid()))
        try await relay.complete([(1, .sent)], at: F.t0)
        #expect(try await relay.pendingDeliveryCount() == 0)
        #expect(try await relay.rowCount("pg_prepared_statements") == 1)
    }

    /// PostgreSQL's text holds no NUL character: a message with one is refused, never stored cut short.
    @Test func aTextWithANulCharacterIsRefusedWhole() async throws {
        let store = try await StoreKind.postgres.makeStore()
        var n = F.notification()
        n.message.content = .text("before\u{0}after")
        await #expect { try await store.createNotification(n, recipients: .init(roomId: "room-1")) } throws: {
            ($0 as? StoreError)?.code == .invalidData
        }
        #expect(try await F.count("notifications", in: store) == 0)
    }

    /// Finding the apps with due deliveries reads an index a few rows per app (a loose index scan), never
    /// every pending delivery; an app whose due rows are all leased, or due later, is left out.
    @Test func dueAppsAreFoundWithoutReadingEveryPendingDelivery() async throws {
        let store = try await Self.newStore()
        let now = EpochMilliseconds.of(F.t0)
        try await store.execute(
            """
            INSERT INTO deliveries (notification_id, app_id, user_id, token, next_attempt_at)
            SELECT gen_random_uuid(), 'app-' || (n % 3), 'u', 't' || n,
                CASE WHEN n % 3 = 2 THEN \(now) + 60000 ELSE \(now) END
            FROM generate_series(1, 30000) AS n;
            INSERT INTO delivery_leases (app_id, next_attempt_at, first_id, last_id, lease_until, lease_owner)
            VALUES ('app-1', \(now), 1, 30000, \(now) + 30000, 'relay-b');
            ANALYZE deliveries;
            """
        )
        #expect(try await store.appsWithDueDeliveries(now: F.t0) == ["app-0"])
        let plan = try await store.plan(PostgresStore.dueAppsSQL, F.t0)
        #expect(!plan.contains("Seq Scan on deliveries ") && plan.contains("deliveries_due"), "\(plan)")
    }

    /// The due apps, as the pending probe below, are read from the end of `deliveries_due`, not past the
    /// entries of every row sent since the last vacuum, whether the statistics were taken before the rows
    /// were sent or after (autovacuum's analyze: one pending row, where a plain aggregate read the index from
    /// its start); an app whose last due row is sent is left out.
    @Test(arguments: [false, true]) func dueAppsAreReadFromTheEndOfTheDueIndex(analyzed: Bool) async throws {
        let store = try await Self.storeWithPendingDeliveries(10000)
        try await store.complete((1...9999).map { ($0, DeliveryOutcome.sent) }, at: F.t0)
        if analyzed { try await store.execute("ANALYZE deliveries") }
        let plan = try await store.plan(PostgresStore.dueAppsSQL, F.t0)
        #expect(
            plan.contains("Scan Backward using deliveries_due")
                && !plan.contains("Scan using deliveries_due"),
            "\(plan)"
        )
        #expect(try await store.appsWithDueDeliveries(now: F.t0) == ["app"])
        try await store.complete([(10000, DeliveryOutcome.sent)], at: F.t0)
        #expect(try await store.appsWithDueDeliveries(now: F.t0).isEmpty)
    }

    /// A batch of accepted pushes is recorded by seeking each delivery, never by reading the whole table,
    /// whatever the statistics say of its size.
    @Test func sentPushesAreRecordedByTheirIdsAlone() async throws {
        let store = try await Self.storeWithPendingDeliveries(10000)
        let batch = try StoredValues.jsonList(Array(Int64(5001)...Int64(5100)))
        let plan = try await store.plan(PostgresStore.recordSentSQL, batch, F.t0)
        #expect(!plan.contains("Seq Scan") && plan.contains("deliveries_pkey"), "\(plan)")
        try await store.complete((5001...5100).map { ($0, DeliveryOutcome.sent) }, at: F.t0)
        #expect(try await store.pendingDeliveryCount() == 9900)
    }

    /// Whether a delivery is pending is read from the end of `deliveries_due`, where the newest pending row
    /// is, not from its start, past the entries of every row sent since the last vacuum.
    @Test(arguments: [false, true]) func thePendingProbeReadsFromTheEndOfTheDueIndex(analyzed: Bool) async throws {
        let store = try await Self.storeWithPendingDeliveries(10000)
        try await store.complete((1...9999).map { ($0, DeliveryOutcome.sent) }, at: F.t0)
        if analyzed { try await store.execute("ANALYZE deliveries") }
        let plan = try await store.plan(PostgresStore.pendingProbeSQL)
        #expect(plan.contains("Index Scan Backward using deliveries_due"), "\(plan)")
        #expect(try await store.hasPendingDeliveries())
        try await store.complete([(10000, DeliveryOutcome.sent)], at: F.t0)
        #expect(try await store.hasPendingDeliveries() == false)
    }

    /// A claim leases a fan-out's rows with one lease row and writes none of them: each row keeps the
    /// version its insert wrote (`xmin`) and its place (`ctid`) until its result is recorded.
    @Test func aClaimWritesNoDeliveryRow() async throws {
        let store = try await Self.newStore()
        for n in 0..<20 { try await store.register(F.token(n), user: "u\(n)") }
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let key = "id::text || ' ' || xmin::text"
        let before = try await store.pages(of: "deliveries", key: key)
        let jobs = try await store.claimDueDeliveries(
            appId: "app-a",
            now: F.t0,
            limit: 50,
            leaseSeconds: 60,
            owner: F.owner
        )
        #expect(jobs.count == 20)
        #expect(try await store.rowCount("delivery_leases") == 1)
        #expect(try await store.pages(of: "deliveries", key: key) == before)
        let again = try await store.claimDueDeliveries(
            appId: "app-a",
            now: F.t0,
            limit: 50,
            leaseSeconds: 60,
            owner: F.owner
        )
        #expect(again.isEmpty)
    }

    /// A claim checks each due row below the last leased id against the leases with one seek of
    /// `delivery_leases_by_run`, never by reading every lease per row, whatever the statistics say (here: none
    /// taken since the leases were written).
    @Test func aClaimSeeksTheLeasesOfEachDueRow() async throws {
        let store = try await Self.storeWithLeasedRuns(count: 1001, length: 10, until: 9_000_000)
        let cursor = (Int64(1000), Int64(12000))
        let plan = try await store.plan(PostgresStore.claimSQL, "app", F.t0, 250, cursor.0, cursor.1)
        #expect(Self.seeksEachLease(plan), "\(plan)")
    }

    /// A claim reads who read its messages' rooms since the messages in one statement, a range of the readers'
    /// index per notification (``RelayStore/ClaimReads``), in the plan made at the call and in the generic
    /// plan a prepared statement may keep; past a range's limit it seeks each recipient's position. Its own
    /// statement seeks no read position per row.
    @Test func aClaimReadsTheReadersOfARoomAsARangeOfTheirIndex() async throws {
        let store = try await Self.newStore()
        try await store.execute(
            """
            INSERT INTO room_members (app_id, room_id, user_id, joined_at, read_at)
            SELECT 'app', 'room-1', 'u' || n, 0, CASE WHEN n % 1000 = 0 THEN 5000 ELSE 3000 END
            FROM generate_series(1, 20000) AS n;
            INSERT INTO ditto_subscriptions (app_id, room_id, user_id, read_at)
            SELECT app_id, room_id, user_id, read_at FROM room_members;
            ANALYZE room_members, ditto_subscriptions;
            """
        )
        // Since 4000, 20 of the 20,000 members read the room.
        let reads = #"[{"i": 0, "room": "room-1", "at": 4000, "lim": 320}]"#
        for (sql, index) in [
            (PostgresStore.readersSQL, "room_members_by_read"),
            (PostgresStore.readersDittoSQL, "ditto_subscriptions_by_read"),
        ] {
            let plan = try await store.planInClaim(of: "app", sql, "app", reads)
            #expect(plan.contains(index), "\(plan)")
            let kept = try await store.genericPlanInClaim(of: "app", sql, types: "text, jsonb", "'app', '\(reads)'")
            #expect(kept.contains(index), "\(kept)")
        }
        for sql in [PostgresStore.readersAmongSQL, PostgresStore.readersAmongDittoSQL] {
            // Since 2000, the whole room read: each of the two users' positions is sought.
            let plan = try await store.planInClaim(of: "app", sql, "app", "room-1", #"["u1000", "u7"]"#, Int64(2000))
            let seeks = plan.split(separator: "\n").filter { $0.contains("Index Cond") }
            #expect(seeks.contains { $0.contains("user_id = u.id") } && !plan.contains("_by_read"), "\(plan)")
        }
        let claim = try await store.plan(PostgresStore.claimSQL, "app", F.t0, 250, Int64.min, Int64.min)
        #expect(!claim.contains("room_members") && !claim.contains("ditto_subscriptions"), "\(claim)")
    }

    /// A claim reading past every run a live lease holds, as a relay's claims do during a fan-out (each goes
    /// on from its cursor, past what it leased), seeks no lease for its rows: the last leased id is read once.
    /// One reading from before them seeks the lease of each row it passes.
    @Test func aClaimPastEveryLiveLeaseSeeksNoLeasePerRow() async throws {
        let until = EpochMilliseconds.of(F.t0) + 60_000
        let store = try await Self.storeWithLeasedRuns(count: 1001, length: 10, until: until)
        let past = try await store.analyze(PostgresStore.claimSQL, "app", F.t0, 250, Int64(1000), Int64(12000))
        let seeks = Self.subPlans(past).filter { $0.contains("delivery_leases") }
        #expect(!seeks.isEmpty && seeks.allSatisfy { $0.contains("never executed") }, "\(past)")
        let before = try await store.analyze(PostgresStore.claimSQL, "app", F.t0, 250, Int64(1000), Int64(5000))
        let passed = Self.subPlans(before).filter { $0.contains("delivery_leases") }
        #expect(!passed.isEmpty && passed.allSatisfy { !$0.contains("never executed") }, "\(before)")
    }

    /// The same with statistics taken once the leases were written, all of them ended before the claim's time
    /// (as any picture the statistics hold soon is: lease ends only grow): the claim and the due apps still
    /// seek the index for each due row. Filtering `lease_until` inside the ordered read made the planner
    /// count on finding nothing there and read every lease per due row instead.
    @Test func aClaimSeeksTheLeasesOfEachDueRowWithStatistics() async throws {
        let store = try await Self.storeWithLeasedRuns(count: 1001, length: 10, until: 9_000_000)
        try await store.execute("ANALYZE delivery_leases")
        let claim = try await store.plan(PostgresStore.claimSQL, "app", F.t0, 250, Int64(1000), Int64(12000))
        let apps = try await store.plan(PostgresStore.dueAppsSQL, F.t0)
        for plan in [claim, apps] {
            #expect(Self.seeksEachLease(plan), "\(plan)")
        }
    }

    /// PostgreSQL keeps one generic plan of a prepared claim per connection after its first calls. Made here
    /// while the outbox held eight rows, it still reads the due index in order and seeks each row's
    /// notification and device once 20,000 rows are pending, with no statistics taken since:
    /// the claim's transaction turns the other ways to read and join off (``PostgresStore/claimLockSQL``).
    /// Autovacuum is off for `deliveries`, so only a reset of the server's caches between the claims and the
    /// `EXPLAIN` would have the plan made again, there, on the full table.
    @Test func aClaimPlanMadeOnANearlyEmptyOutboxStillSeeksOnceItFills() async throws {
        let store = try await Self.newStore()
        try await store.execute("ALTER TABLE deliveries SET (autovacuum_enabled = false)")
        for n in 0..<8 { try await store.register(F.token(n), user: "u\(n)") }
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        try await store.execute("ANALYZE")
        for _ in 0..<8 {
            let jobs = try await store.claimDueDeliveries(
                appId: "app-a",
                now: F.t0,
                limit: 1,
                leaseSeconds: 60,
                owner: F.owner
            )
            #expect(jobs.count == 1)
        }
        let claim = try await store.prepared(PostgresStore.claimSQL)
        #expect(claim.genericPlans > 0)
        try await store.execute(
            """
            INSERT INTO deliveries (notification_id, app_id, user_id, token, next_attempt_at)
            SELECT (SELECT id FROM notifications), 'app-a', 'u' || n, 't' || n, 0 FROM generate_series(1, 20000) AS n
            """
        )
        let now = EpochMilliseconds.of(F.t0)
        let run = try await store.analyzeInClaim(
            of: "app-a",
            "EXECUTE \(claim.name)('app-a', \(now), 100, \(Int64.min), \(Int64.min))"
        )
        #expect(run.contains("Index Scan using deliveries_due on deliveries"), "\(run)")
        #expect(!["Seq Scan", "Bitmap", "Hash", "Merge", "Sort Key: dl"].contains { run.contains($0) }, "\(run)")
    }

    /// Claims of one app take turns on a database whose default isolation is REPEATABLE READ too: a claim
    /// that waited for another's lock sees the leases it committed (a snapshot taken while waiting would not).
    @Test func claimsThatWaitedForEachOtherNeverOverlapUnderRepeatableRead() async throws {
        let database = try await StoreKind.postgres.makeDatabase()
        let admin = try #require(try database.open() as? PostgresStore)
        try await admin.execute(
            """
            DO $$ BEGIN
            EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = ''repeatable read''',
                current_database());
            END $$;
            """
        )
        let a = try database.open()
        let b = try database.open()
        for n in 0..<5 { try await admin.register(F.token(n), user: "u\(n)") }
        _ = try await admin.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let lock = PostgresStore.claimLockKeys(app: "'app-a'")
        try await admin.execute("SELECT pg_advisory_lock(\(lock))")
        async let first = a.claimDueDeliveries(appId: "app-a", now: F.t0, limit: 10, leaseSeconds: 60, owner: F.owner)
        async let second = b.claimDueDeliveries(
            appId: "app-a",
            now: F.t0,
            limit: 10,
            leaseSeconds: 60,
            owner: F.otherOwner
        )
        // Both wait for the lock before it is let go (the suite's time limit bounds the wait).
        while try await admin.rowCount("pg_locks WHERE locktype = 'advisory' AND NOT granted") < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await admin.execute("SELECT pg_advisory_unlock(\(lock))")
        let (x, y) = try await (first.map(\.deliveryId), second.map(\.deliveryId))
        #expect(x.count + y.count == 5 && Set(x).isDisjoint(with: y), "a took \(x), b took \(y)")
    }

    /// A claim that drops ended leases checks whether each still holds a pending delivery by reading that
    /// lease's ids alone, never every pending delivery, whatever the statistics say.
    @Test func droppingEndedLeasesReadsOnlyTheirIds() async throws {
        let store = try await Self.storeWithLeasedRuns(count: 101, length: 100, until: 5)
        let plan = try await store.plan(PostgresStore.dropEndedLeasesSQL, "app", F.t0)
        #expect(!plan.contains("Seq Scan on deliveries "), "\(plan)")
        #expect(try await store.rowCount("delivery_leases") == 101)
    }

    /// A lease covers only ids its claim read: a delivery committed after the claim with an id inside the
    /// ids it took (ids are drawn in one order and committed in another, by several relays) is claimed by the
    /// next claim, not held back until the lease ends.
    @Test func aDeliveryCommittedLateInsideAClaimsIdsIsNotHeldBack() async throws {
        let store = try await Self.newStore()
        for n in 0..<5 { try await store.register(F.token(n), user: "u\(n)") }
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        // The third delivery is taken out before the first claim and put back, with its id, after it.
        try await store.execute(
            """
            CREATE TEMP TABLE held AS SELECT * FROM deliveries ORDER BY id OFFSET 2 LIMIT 1;
            DELETE FROM deliveries WHERE id IN (SELECT id FROM held);
            """
        )
        let first = try await store.claimDueDeliveries(
            appId: "app-a",
            now: F.t0,
            limit: 10,
            leaseSeconds: 60,
            owner: F.owner
        )
        #expect(first.count == 4)
        try await store.execute("INSERT INTO deliveries OVERRIDING SYSTEM VALUE SELECT * FROM held")
        let second = try await store.claimDueDeliveries(
            appId: "app-a",
            now: F.t0,
            limit: 10,
            leaseSeconds: 60,
            owner: F.owner
        )
        #expect(second.count == 1)
        #expect(second.allSatisfy { $0.deliveryId > first[1].deliveryId && $0.deliveryId < first[2].deliveryId })
    }

    /// A message adds to the unread total of every member of its room in one statement; each total's new
    /// version stays on the row's page. (Later messages find the room again once the page is pruned of the
    /// versions no transaction sees any more; the tests' schemas share one database, whose other sessions
    /// may hold those versions, so one message is checked.)
    @Test func unreadTotalsAreAddedToOnTheirOwnPages() async throws {
        let store = try await Self.newStore()
        try await store.execute(
            """
            INSERT INTO unread_totals (app_id, user_id, from_ditto, total)
            SELECT 'app', 'user-' || lpad(n::text, 6, '0'), false, 0 FROM generate_series(1, 2000) AS n;
            """
        )
        let before = try await store.pages(of: "unread_totals", key: "user_id")
        try await store.execute("UPDATE unread_totals SET total = total + 1 WHERE app_id = 'app'")
        let after = try await store.pages(of: "unread_totals", key: "user_id")
        let moved = before.filter { after[$0.key] != $0.value }.count
        #expect(moved == 0, "\(moved) of 2000 totals moved to another page")
    }

    /// A store on a new database whose statements may take a minute: the setups here write tens of
    /// thousands of rows, which on a test machine busy with every other suite can take longer than the
    /// relay's default 10 s; no test of this suite is about that limit.
    static func newStore() async throws -> PostgresStore {
        try PostgresStore(
            url: try await PostgresCluster.shared().newDatabaseURL(),
            logger: .disabled(),
            statementTimeout: 60
        )
    }

    /// A store holding `count` pending deliveries of app `app`, due at 0, ids 1 to `count`, with statistics.
    static func storeWithPendingDeliveries(_ count: Int) async throws -> PostgresStore {
        let store = try await newStore()
        try await store.execute(
            """
            INSERT INTO deliveries (notification_id, app_id, user_id, token, next_attempt_at)
            SELECT gen_random_uuid(), 'app', 'u' || n, 't' || n, 0 FROM generate_series(1, \(count)) AS n;
            ANALYZE deliveries;
            """
        )
        return store
    }

    /// A store with 20,000 pending deliveries of app `app` due at 1000 (their statistics taken), then, with
    /// none taken since, `count` leases of relay-b of `length` ids each from id 0 on, until `until` (epoch
    /// MILLISECONDS).
    static func storeWithLeasedRuns(count: Int, length: Int, until: Int64) async throws -> PostgresStore {
        let store = try await Self.newStore()
        try await store.execute(
            """
            INSERT INTO deliveries (notification_id, app_id, user_id, token, next_attempt_at)
            SELECT gen_random_uuid(), 'app', 'u' || n, 't' || n, 1000 FROM generate_series(1, 20000) AS n;
            ANALYZE deliveries, delivery_leases;
            INSERT INTO delivery_leases (app_id, next_attempt_at, first_id, last_id, lease_until, lease_owner)
            SELECT 'app', 1000, n * \(length), n * \(length) + \(length - 1), \(until), 'relay-b'
            FROM generate_series(0, \(count - 1)) AS n;
            """
        )
        return store
    }

    /// Whether `plan`'s subqueries per row look a lease up by a seek of `delivery_leases_by_run` to the
    /// row's due time and id, and never read the whole table.
    static func seeksEachLease(_ plan: String) -> Bool {
        let perRow = subPlans(plan).joined(separator: "\n")
        let seek =
            "Index Cond: ((app_id = dl.app_id) AND (next_attempt_at = dl.next_attempt_at)"
            + " AND (last_id >= dl.id))"
        return perRow.contains("delivery_leases_by_run") && perRow.contains(seek)
            && !perRow.contains("Seq Scan on delivery_leases")
    }

    /// The subqueries `plan` runs per row (each `SubPlan` and the lines indented under it), one string each.
    static func subPlans(_ plan: String) -> [String] {
        var blocks: [[Substring]] = []
        var indent: Int?
        for line in plan.split(separator: "\n") {
            let depth = line.prefix { $0 == " " }.count
            if let indent, depth > indent {
                blocks[blocks.count - 1].append(line)
                continue
            }
            indent = line.contains("SubPlan") ? depth : nil
            if indent != nil { blocks.append([line]) }
        }
        return blocks.map { $0.joined(separator: "\n") }
    }

    /// Runs `body` on a thread of its own: the store's initializer blocks while it connects and migrates.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

extension PostgresStore {
    /// Whether a call runs on the store's thread.
    func onStoreThread() -> Bool { isOnStoreThread }

    /// The plan PostgreSQL chooses for `sql` with `parameters` as $1, $2, …, one line per node.
    func plan(_ sql: String, _ parameters: (any PostgresParameter)?...) throws -> String {
        try explain("", sql, parameters)
    }

    /// `sql`'s plan as it ran with `parameters`: row counts, no timings.
    func analyze(_ sql: String, _ parameters: (any PostgresParameter)?...) throws -> String {
        try explain(Self.analyzeOptions, sql, parameters)
    }

    /// ``analyze(_:_:)``'s options of `EXPLAIN`.
    private static let analyzeOptions = "(ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "

    /// ``plan(_:_:)`` inside a claim's transaction of `appId`, after its lock, where a claim's other
    /// statements are planned.
    func planInClaim(of appId: String, _ sql: String, _ parameters: (any PostgresParameter)?...) throws -> String {
        try inClaim(of: appId) { try explain("", sql, parameters) }
    }

    /// The generic plan of `sql` (its parameters of SQL `types`), the one PostgreSQL may keep for it once
    /// prepared, made inside a claim's transaction of `appId` and shown for `arguments` (SQL literals).
    func genericPlanInClaim(of appId: String, _ sql: String, types: String, _ arguments: String) throws -> String {
        try inClaim(of: appId) {
            try db.query("SET LOCAL plan_cache_mode = force_generic_plan")
            try db.query("PREPARE generic_probe (\(types)) AS " + sql)
            defer { _ = try? db.query("DEALLOCATE generic_probe") }
            return try explain("", "EXECUTE generic_probe (\(arguments))", [])
        }
    }

    /// ``analyze(_:_:)`` inside a claim's transaction of `appId`, after its lock: a plan made again there (a
    /// kept plan is invalidated by an analyze of a table it reads, or a reset of the server's caches) is made
    /// as a claim makes it.
    func analyzeInClaim(of appId: String, _ sql: String) throws -> String {
        try inClaim(of: appId) { try analyze(sql) }
    }

    /// ``analyze(_:_:)`` in a transaction that reads index ranges in order (``seekingOnly(_:)``), where the
    /// statement is planned as the store plans it.
    func analyzeSeekingOnly(_ sql: String, _ parameters: (any PostgresParameter)?...) throws -> String {
        try seekingOnly { try explain(Self.analyzeOptions, sql, parameters) }
    }

    /// Runs `body` inside a claim's transaction of `appId`, after its lock (``claimLockSQL``).
    func inClaim<T>(of appId: String, _ body: () throws -> T) throws -> T {
        try db.transaction {
            try db.query(prepared: Self.claimLockSQL, appId)
            return try body()
        }
    }

    /// `EXPLAIN` with `options` of `sql`, one line per node.
    private func explain(_ options: String, _ sql: String, _ parameters: [(any PostgresParameter)?]) throws -> String {
        try db.query("EXPLAIN " + options + sql, parameters).all.map { $0.string(0) }.joined(separator: "\n")
    }

    /// The name this session prepared `sql` under, and how many of its runs took PostgreSQL's generic plan.
    func prepared(_ sql: String) throws -> (name: String, genericPlans: Int) {
        let row = try db.query("SELECT name, generic_plans FROM pg_prepared_statements WHERE statement = $1", sql)[0]
        return (row.string(0), try row.int(1))
    }

    /// The heap page of each live row of `table`, by `key` (an SQL expression of a unique column).
    func pages(of table: String, key: String) throws -> [String: Int] {
        let rows = try db.query("SELECT \(key), (ctid::text::point)[0]::bigint FROM \(table)")
        return Dictionary(uniqueKeysWithValues: try rows.all.map { ($0.string(0), try $0.int(1)) })
    }

    /// The process id of the server process this store's connection talks to.
    func backendPid() throws -> Int { try db.query("SELECT pg_backend_pid()")[0].int(0) }

    /// Ends server process `pid` and waits (up to 5 s) until it has exited; false when it did not.
    func terminateBackend(_ pid: Int) throws -> Bool {
        try db.query("SELECT pg_terminate_backend($1, 5000)", pid)[0].bool(0)
    }
}
