import Foundation
import RelayCore
import RelayPostgres
import RelayTestSupport
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// `push-relay storage copy`, run as a process: a SQLite store seeded through the Store API is copied into
/// a new PostgreSQL schema and read back through the Store API.
@Suite struct StorageCopyTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let iosToken = PushToken.apns(try! DeviceToken(parsing: String(repeating: "ab", count: 32)))
    static let androidToken = PushToken.fcm(
        try! FCMRegistrationToken(parsing: "fcm-token:APA91b" + String(repeating: "Xy_", count: 40))
    )
    static let retiredToken = PushToken.apns(try! DeviceToken(parsing: String(repeating: "cd", count: 32)))
    static let unlinkedToken = PushToken.apns(try! DeviceToken(parsing: String(repeating: "ef", count: 32)))
    static let key = IdempotencyKey(scope: "backend", key: "k-1", requestHash: Data((0..<32).map { UInt8($0 * 7) }))

    static func notification(_ text: String, at seconds: Double) -> NewNotification {
        NewNotification(
            appId: "chat",
            message: ChatMessage(
                roomId: "room-1",
                senderId: "dora",
                content: .image(caption: text, imageURL: "https://example.com/\(text).png"),
                messageId: "m-\(text)",
                roomName: "Room",
                senderName: "Dora"
            ),
            sendAs: "com.example.chat",
            expiration: 1_900_000_000,
            createdAt: t0.addingTimeInterval(seconds)
        )
    }

    /// A relay's data: devices of both platforms, one retired (with its feedback queued) and one with an
    /// unlinked topic, a room with a member at level none (and a default level) and a rule of its own, a finished notification (one
    /// delivery sent, one retried, one retired, one unlinked), and a pending one made with an idempotency
    /// key. Returns the two notifications.
    static func seed(_ store: SQLiteStore) async throws -> (finished: UUID, pending: UUID) {
        await store.setFeedbackPolicy(FeedbackPolicy(appIds: ["chat"]))
        let at = t0
        _ = try await store.upsertDevice(
            appId: "chat",
            token: try iosToken.registered(scope: "sandbox"),
            userId: "ann",
            rooms: ["room-1"],
            at: at
        )
        _ = try await store.upsertDevice(
            appId: "chat",
            token: androidToken,
            userId: "bob",
            rooms: ["room-1"],
            at: at
        )
        _ = try await store.upsertDevice(
            appId: "chat",
            token: try retiredToken.registered(scope: "production"),
            userId: "cid",
            rooms: ["room-1"],
            at: at
        )
        _ = try await store.upsertDevice(
            appId: "chat",
            token: try unlinkedToken.registered(scope: "production"),
            userId: "dan",
            rooms: ["room-1"],
            at: at
        )
        try await store.addMember(appId: "chat", roomId: "room-1", userId: "eve", notify: .set(.none), at: at)
        try await store.setUserLevel(appId: "chat", userId: "eve", .mentions)
        try await store.setRoomMembership(appId: "chat", roomId: "room-1", membership: .closed, at: at)

        let finished = try await store.createNotification(
            notification("one", at: 1),
            recipients: .init(roomId: "room-1")
        )
        let jobs = try await store.claimDueDeliveries(
            now: at.addingTimeInterval(2),
            limit: 10,
            leaseSeconds: 30,
            owner: "local"
        )
        #expect(jobs.count == 4)
        try await store.complete(
            jobs.map { job in
                let outcome: DeliveryOutcome =
                    switch job.token {
                    case iosToken: .sent
                    case androidToken: .retry(at: at.addingTimeInterval(600), status: 503, reason: "UNAVAILABLE")
                    case unlinkedToken:
                        .unlink(sendAs: "com.example.chat", status: 400, reason: "DeviceTokenNotForTopic")
                    default: .retired(status: 410, reason: "Unregistered", invalidSince: at.addingTimeInterval(1))
                    }
                return (job.deliveryId, outcome)
            },
            at: at.addingTimeInterval(3)
        )
        let pending = try await store.createNotification(
            notification("two", at: 4),
            recipients: .init(roomId: "room-1"),
            idempotencyKey: key
        )
        #expect(pending.devices == 2)
        try await seedDitto(store)
        return (finished.notificationId, pending.notificationId)
    }

    /// A Ditto app's mirror: a room and a DM room, a user subscribed (with a read date) and mentioned, a
    /// user removed (a tombstone), a message seen, and a requery pending.
    static func seedDitto(_ store: SQLiteStore) async throws {
        let lines = [
            #"{"txnId":1,"type":"documentChanged","collection":"rooms","change":{"method":"upsert","oldValue":null,"newValue":{"_id":"general","name":"General"}}}"#,
            #"{"txnId":2,"type":"documentChanged","collection":"dm_rooms","change":{"method":"upsert","oldValue":null,"newValue":{"_id":"dm-1","participants":["ann","bob"]}}}"#,
            #"{"txnId":3,"type":"documentChanged","collection":"users","change":{"method":"upsert","oldValue":null,"newValue":{"_id":"ann","name":"Ann","subscriptions":{"general":"2027-01-15T08:00:00Z"},"mentions":{"general":["m-1"]}}}}"#,
            #"{"txnId":4,"type":"documentChanged","collection":"users","change":{"method":"upsert","oldValue":null,"newValue":{"_id":"gus","subscriptions":{}}}}"#,
            #"{"txnId":5,"type":"documentChanged","collection":"users","change":{"method":"remove","value":{"_id":"gus"}}}"#,
            #"{"txnId":6,"type":"documentChanged","collection":"messages","change":{"method":"upsert","oldValue":null,"newValue":{"_id":"m-1","roomId":"general","userId":"bob","text":"hi","createdOn":"2027-01-15T07:59:50Z"}}}"#,
            #"{"txnId":7,"type":"requeryRequired"}"#,
        ]
        let events = try lines.map { try DittoEvent.decode(Array($0.utf8)) }
        _ = try await store.applyDittoEvents(events, appId: "ditto", settings: dittoSettings, at: t0)
    }

    static let dittoSettings = DittoApplySettings(rule: DittoMessageRule(), sendAs: "t", ttlSeconds: 60, privacy: false)

    /// Every row of the Ditto mirror's tables, as the copy moves them (key order aside), by table.
    static func dittoRows(_ store: any StoreExport) async throws -> [String: [NSDictionary]] {
        var rows: [String: [NSDictionary]] = [:]
        for table in StoreTable.allCases where table.rawValue.hasPrefix("ditto_") {
            let batch = try await store.exportBatch(table, after: nil, limit: 100)
            let objects = try #require(try JSONSerialization.jsonObject(with: batch.rows) as? [[String: Any]])
            rows[table.rawValue] = objects.map { $0 as NSDictionary }
        }
        return rows
    }

    /// What a store holds, read through the Store API (both copies must answer the same).
    struct Reading: Equatable, CustomStringConvertible {
        var devices: [Device?]
        var members: [RoomMember]
        var membership: RoomMembership?
        var userLevel: NotifyLevel?
        var notifications: [String]
        var deadTokens: [Device]
        var deviceCounts: [DeviceState: Int]
        var pending: Int
        var feedback: Int

        var description: String { "\(self.notifications)" }
    }

    static func read(_ store: any Store, _ ids: [UUID]) async throws -> Reading {
        var devices: [Device?] = []
        for token in [iosToken, androidToken, retiredToken, unlinkedToken] {
            devices.append(try await store.device(appId: "chat", token: token))
        }
        var notifications: [String] = []
        for id in ids {
            let found = try #require(try await store.notification(appId: "chat", id: id))
            notifications.append("\(found.summary) \(found.deliveries)")
        }
        return Reading(
            devices: devices,
            members: try await store.members(appId: "chat", roomId: "room-1"),
            membership: try await store.roomMembership(appId: "chat", roomId: "room-1"),
            userLevel: try await store.userLevel(appId: "chat", userId: "eve"),
            notifications: notifications,
            deadTokens: try await store.deadTokens(appId: "chat", since: .distantPast),
            deviceCounts: try await store.deviceCounts(),
            pending: try await store.pendingDeliveryCount(),
            feedback: try await store.pendingFeedbackCount()
        )
    }

    /// A SQLite store at `path`, seeded (``seed(_:)``), read and closed: its notifications, what it reads, and
    /// its Ditto mirror's rows.
    static func seededFile(
        at path: String
    ) async throws -> (ids: (finished: UUID, pending: UUID), reading: Reading, ditto: [String: [NSDictionary]]) {
        let source = try SQLiteStore(path: path, logger: .disabled())
        let ids = try await seed(source)
        return (ids, try await read(source, [ids.finished, ids.pending]), try await dittoRows(source))
    }

    @Test func copiesASQLiteStoreIntoPostgreSQLAsItReadsThroughTheStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("relay.sqlite").path
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let (ids, expected, ditto) = try await Self.seededFile(at: path)
        #expect(ditto.count == 7 && ditto.values.allSatisfy { !$0.isEmpty }, "\(ditto)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let result = try await CommandTests.run([
            "storage", "copy", "--from", "sqlite:\(path)", "--to", "postgres:\(url)", "--batch", "2",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stdout)"
        )
        #expect(report["devices"] as? Int == 4)
        #expect(report["room_members"] as? Int == 5)
        #expect(report["room_levels"] as? Int == 1)
        #expect(report["user_settings"] as? Int == 1)
        #expect(report["rooms"] as? Int == 1)
        #expect(report["notifications"] as? Int == 3)  // the Ditto message's too (its recipient has no device)
        #expect(report["deliveries"] as? Int == 6)
        #expect(report["idempotency_keys"] as? Int == 1)
        #expect(report["feedback"] as? Int == 1)
        #expect(report["ditto_documents"] as? Int == 4, "\(report)")
        #expect(report["ditto_requeries"] as? Int == 1)
        #expect(report["seconds"] is Double)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the source file was written")

        let copy = try PostgresStore(url: url, logger: .disabled())
        #expect(try await Self.read(copy, [ids.finished, ids.pending]) == expected)
        #expect(try await Self.dittoRows(copy) == ditto)
        // The requery is still pending, and the tombstone keeps an older replay of the removed user out.
        #expect(try await copy.pendingDittoRequeries() == ["ditto": 7])
        let older = try DittoEvent.decode(
            Array(
                #"{"txnId":4,"type":"documentChanged","collection":"users","change":{"method":"upsert","oldValue":null,"newValue":{"_id":"gus"}}}"#
                    .utf8
            )
        )
        let counts = try await copy.applyDittoEvents([older], appId: "ditto", settings: Self.dittoSettings, at: Self.t0)
        #expect(counts.ignored == 1 && counts.applied == 0)

        // The copied pending deliveries are claimable (no lease), with the ids and apns-ids they had.
        let pending = try #require(try await copy.notification(appId: "chat", id: ids.pending))
        let claimed = try await copy.claimDueDeliveries(
            now: Self.t0.addingTimeInterval(5),
            limit: 10,
            leaseSeconds: 30,
            owner: "local"
        )
        #expect(Set(claimed.map(\.deliveryId)) == Set(pending.deliveries.map(\.deliveryId)))
        #expect(Set(claimed.map(\.pushId)) == Set(pending.deliveries.map(\.pushId)))
        #expect(Set(claimed.map(\.token)) == [Self.iosToken, Self.androidToken])

        // The idempotent replay answers the first notification; a new one takes ids after the copied ones.
        let replay = try await copy.createNotification(
            Self.notification("three", at: 6),
            recipients: .init(roomId: "room-1"),
            idempotencyKey: Self.key
        )
        #expect(replay == .duplicate(notificationId: ids.pending, devices: 2))
        let next = try await copy.createNotification(
            Self.notification("four", at: 7),
            recipients: .init(roomId: "room-1")
        )
        let fresh = try #require(try await copy.notification(appId: "chat", id: next.notificationId))
        let copiedMax = try #require(pending.deliveries.map(\.deliveryId).max())
        #expect(fresh.deliveries.count == 2 && fresh.deliveries.allSatisfy { $0.deliveryId > copiedMax })

        // The queued feedback item is claimable, as it was queued, by a relay with the app's feedback URL.
        await copy.setFeedbackPolicy(FeedbackPolicy(appIds: ["chat"]))
        let feedback = try await copy.claimDueFeedback(
            now: Self.t0.addingTimeInterval(5),
            limit: 10,
            leaseSeconds: 30,
            owner: "local"
        )
        #expect(feedback.map(\.token) == [Self.retiredToken])
        #expect(feedback.first?.reason == "Unregistered" && feedback.first?.userId == "cid")

        // A destination holding data is refused, and nothing is written to it.
        let again = try await CommandTests.run([
            "storage", "copy", "--from", "sqlite:\(path)", "--to", "postgres:\(url)",
        ])
        #expect(again.status == 2)
        #expect(again.stderr.contains("not empty"), "\(again.stderr)")
        #expect(try await copy.pendingDeliveryCount() == 5)
    }

    /// A destination a live relay serves is refused before the copy's first write: the error says so, and
    /// nothing about rows left behind or emptying the database.
    @Test func aDestinationALiveRelayServesIsRefusedAsItWas() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("relay.sqlite").path
        _ = try await Self.seededFile(at: file)
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let relay = try PostgresStore(url: url, logger: .disabled())
        try await relay.claimInstance("relay-1")
        let refused = try await CommandTests.run(["storage", "copy", "--from", "sqlite:\(file)", "--to", url])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("a live relay serves this schema"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("failed part way") && !refused.stderr.contains("empty"), "\(refused.stderr)")
    }

    @Test func copiesPostgreSQLBackIntoANewSQLiteFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = directory.url.appendingPathComponent("first.sqlite").path
        let back = directory.url.appendingPathComponent("back.sqlite").path
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let (ids, expected, ditto) = try await Self.seededFile(at: first)
        let there = try await CommandTests.run(["storage", "copy", "--from", "sqlite:\(first)", "--to", url])
        #expect(there.status == 0, "\(there.stderr)")
        let copyBack = ["storage", "copy", "--from", "postgres:\(url)", "--to", "sqlite:\(back)"]
        // While a relay serves the database (it holds its instance lock), the copy is refused.
        do {
            let relay = try PostgresStore(url: url, logger: .disabled())
            try await relay.claimInstance("relay-1")
            let refused = try await CommandTests.run(copyBack)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("a live relay serves this schema"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: back))
        }
        let home = try await CommandTests.run(copyBack)
        #expect(home.status == 0, "\(home.stderr)")
        let copy = try SQLiteStore(path: back, logger: .disabled())
        #expect(try await Self.read(copy, [ids.finished, ids.pending]) == expected)
        #expect(try await Self.dittoRows(copy) == ditto)
        let replay = try await copy.createNotification(
            Self.notification("three", at: 6),
            recipients: .init(roomId: "room-1"),
            idempotencyKey: Self.key
        )
        #expect(replay == .duplicate(notificationId: ids.pending, devices: 2))
    }

    /// A copy back that fails part way (a delivery outside its notification's run, which SQLite cannot keep)
    /// removes the SQLite file it made, so the same command can run again once the cause is gone.
    @Test func aCopyThatFailsPartWayRemovesTheFileItMade() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = directory.url.appendingPathComponent("first.sqlite").path
        let back = directory.url.appendingPathComponent("back.sqlite").path
        let cluster = try await PostgresCluster.shared()
        let schema = "t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try await cluster.psql("CREATE SCHEMA \(schema)")
        let url = cluster.url(schema: schema)
        let (ids, _, _) = try await Self.seededFile(at: first)
        let there = try await CommandTests.run(["storage", "copy", "--from", "sqlite:\(first)", "--to", url])
        #expect(there.status == 0, "\(there.stderr)")
        // The first delivery filed under the other notification, as interleaved fan-outs can leave it.
        _ = try await cluster.psql(
            """
            UPDATE \(schema).deliveries SET notification_id = '\(ids.pending.lowercasedString)'
            WHERE id = (SELECT min(id) FROM \(schema).deliveries)
            """
        )
        let failed = try await CommandTests.run([
            "storage", "copy", "--from", "postgres:\(url)", "--to", "sqlite:\(back)",
        ])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("outside their notification's run of delivery ids"), "\(failed.stderr)")
        #expect(failed.stderr.contains("removed the file it had made"), "\(failed.stderr)")
        for file in SQLiteStore.files(of: back) { #expect(!FileManager.default.fileExists(atPath: file), "\(file)") }
        // A symbolic link that points nowhere yet is the operator's: SQLite makes its target, and both stay.
        let link = directory.url.appendingPathComponent("link.sqlite").path
        let target = directory.url.appendingPathComponent("target.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let linked = try await CommandTests.run([
            "storage", "copy", "--from", "postgres:\(url)", "--to", "sqlite:\(link)",
        ])
        #expect(linked.status == 1)
        #expect(linked.stderr.contains("holds the rows copied before the failure"), "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(FileManager.default.fileExists(atPath: target))
    }

    /// A destination whose open fails part way (`:memory:` is made as a file, then cannot take WAL) leaves
    /// none of the files the open made.
    @Test func aDestinationThatDoesNotOpenLeavesNoFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = directory.url.appendingPathComponent("first.sqlite").path
        _ = try await Self.seededFile(at: first)
        let process = Process()
        process.executableURL = try pushRelayBinary()
        process.arguments = ["storage", "copy", "--from", "sqlite:\(first)", "--to", "sqlite::memory:"]
        process.currentDirectoryURL = directory.url
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!left.contains { $0.hasPrefix(":memory:") }, "\(left)")
    }

    @Test(arguments: [
        (
            ["--from", "sqlite:/nonexistent/relay.sqlite", "--to", "sqlite:/tmp/never.sqlite"], Int32(1),
            "no SQLite store"
        ),
        (
            ["--from", "mysql://relay@db/relay", "--to", "sqlite:/tmp/never.sqlite"], 2,
            "is not sqlite:PATH or postgres:URL"
        ),
        (["--from", "sqlite:/tmp/a.sqlite"], 2, "--to is required"),
        (["--from", "sqlite:/tmp/a.sqlite", "--to", "sqlite:/tmp/a.sqlite"], 2, "the same store"),
        (
            [
                "--from", "postgres:postgresql://relay:s3cret@/relay?host=/nonexistent", "--to",
                "sqlite:/tmp/never.sqlite",
            ], 1, "PQconnectdb"
        ),
        // libpq quotes a string it cannot read, password and all.
        (
            ["--from", "sqlite:/tmp/a.sqlite", "--to", "postgres:postgresql://relay:s3cret@[::1"], 2,
            "in IPv6 host address in URI: \"<redacted>\""
        ),
        (["--from", "sqlite:/tmp/a.sqlite", "--to", "postgres:host=db passwords3cret"], 2, "--to: missing \"=\""),
    ])
    func refusesABadSourceOrCommand(words: [String], status: Int32, message: String) async throws {
        let result = try await CommandTests.run(["storage", "copy"] + words)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.sqlite"))
    }

    /// A source written by a newer build is refused without advising `serve`, which refuses it too.
    @Test func aSourceOfANewerSchemaIsRefusedWithAdviceServeAgreesWith() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("newer.sqlite")
        do {
            let store = try SQLiteStore(path: file.path, logger: .disabled())
            try await store.execute("PRAGMA user_version = \(SQLiteMigrations.steps.count + 1)")
        }
        let copy = try await CommandTests.run([
            "storage", "copy", "--from", "sqlite:\(file.path)", "--to",
            "sqlite:\(directory.url.appendingPathComponent("copy.sqlite").path)",
        ])
        #expect(copy.status == 1)
        #expect(copy.stderr.contains("written by a newer PushRelay"), "\(copy.stderr)")
        #expect(!copy.stderr.contains("serve"), "\(copy.stderr)")
        let serve = try await CommandTests.run(
            ["serve", "--port", "0"],
            environment: ["PUSH_RELAY_STORAGE_SQLITE_PATH": file.path]
        )
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("newer than this build"), "\(serve.stderr)")
    }

    /// A store a live relay serves is not copied: the copy would miss what the relay writes after it, and
    /// both stores would send what was pending. Once the relay is gone the same copy goes through.
    @Test func aStoreALiveRelayServesIsNotCopied() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("live.sqlite")
        let arguments = [
            "storage", "copy", "--from", "sqlite:\(file.path)", "--to",
            "sqlite:\(directory.url.appendingPathComponent("copy.sqlite").path)",
        ]
        do {
            let relay = try SQLiteStore(path: file.path, logger: .disabled())
            try await relay.claimInstance("relay-1")
            let refused = try await CommandTests.run(arguments)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("is served by a live relay, or another copy"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("instanceInUse"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("copy.sqlite").path))
        }
        // The same file spelled another way is one store.
        let again = try await CommandTests.run([
            "storage", "copy", "--from", "sqlite:\(file.path)", "--to",
            "sqlite:\(directory.url.path)/./live.sqlite",
        ])
        #expect(again.status == 2 && again.stderr.contains("name the same store"), "\(again.stderr)")
        let copied = try await CommandTests.run(arguments)
        #expect(copied.status == 0, "\(copied.stderr)")
    }

    @Test func aFileThatIsNotAStoreIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("notes.sqlite")
        try Data("not a database".utf8).write(to: file)
        let result = try await CommandTests.run([
            "storage", "copy", "--from", "sqlite:\(file.path)", "--to",
            "sqlite:\(directory.url.appendingPathComponent("copy.sqlite").path)",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a database"), "\(result.stderr)")
        #expect(try Data(contentsOf: file) == Data("not a database".utf8))
    }

    @Test func helpNamesTheLocations() async throws {
        let result = try await CommandTests.run(["storage", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("sqlite:PATH") && result.stdout.contains("postgres:URL"))
    }
}
