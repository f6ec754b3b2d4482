import Foundation
import RelayCore
import RelayPostgres
import RelaySQLite
import RelayStore
import RelayTestSupport
import Testing

/// `push-relay storage end-pending`, run as a process on a SQLite store with a pending delivery of an app
/// no configuration serves any more.
@Suite struct StorageEndPendingCommandTests {
    @Test func itEndsTheAppsPendingDeliveriesAndSaysHowMany() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("relay.sqlite").path
        let message = ChatMessage(roomId: "room-1", senderId: "dora", content: .text("hi"), messageId: "m-1")
        do {
            let store = try SQLiteStore(path: path, logger: .disabled())
            for app in ["gone", "chat"] {
                _ = try await store.upsertDevice(
                    appId: app,
                    token: try StorageCopyTests.iosToken.registered(scope: "sandbox"),
                    userId: "ann",
                    rooms: ["room-1"],
                    at: StorageCopyTests.t0
                )
                _ = try await store.createNotification(
                    NewNotification(
                        appId: app,
                        message: message,
                        sendAs: "com.example.chat",
                        createdAt: StorageCopyTests.t0
                    ),
                    recipients: RecipientSelection(roomId: "room-1", excludeUserId: "dora")
                )
            }
        }
        let run = ["storage", "end-pending", "--store", "sqlite:\(path)", "--app", "gone"]
        // A relay still sending the app's deliveries (their lease live) still serves it: refused, nothing ended.
        do {
            let relay = try SQLiteStore(path: path, logger: .disabled())
            let claimed = try await relay.claimDueDeliveries(
                appId: "gone",
                now: max(Date(), StorageCopyTests.t0),
                limit: 10,
                leaseSeconds: 600,
                owner: "relay-1"
            )
            #expect(claimed.count == 1)
            let refused = try await CommandTests.run(run)
            #expect(refused.status == 1 && refused.stderr.contains("leased by a relay sending them"), "\(refused)")
            #expect(refused.stdout.isEmpty)
            try await relay.releaseClaims(claimed.map(\.deliveryId), owner: "relay-1")
            // A relay serving the app marked it a moment ago, though it sends nothing now: refused too.
            let marked = try await relay.claimPeriodicRun(
                job: ServedApps.job("chat"),
                owner: "relay-1",
                now: Date(),
                interval: ServedApps.markInterval
            )
            #expect(marked)
            let served = try await CommandTests.run([
                "storage", "end-pending", "--store", "sqlite:\(path)", "--app", "chat",
            ])
            #expect(served.status == 1 && served.stderr.contains("a relay served app 'chat'"), "\(served)")
        }
        let ended = try await CommandTests.run(run)
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(
            ended.stdout.contains(#"{"app":"gone","badgeUpdates":0,"deliveries":1,"feedback":0}"#),
            "\(ended.stdout)"
        )
        let store = try SQLiteStore(path: path, logger: .disabled())
        let later = StorageCopyTests.t0.addingTimeInterval(60)
        #expect(
            try await store.claimDueDeliveries(appId: "gone", now: later, limit: 10, leaseSeconds: 30, owner: "t")
                .isEmpty
        )
        #expect(
            try await store.claimDueDeliveries(appId: "chat", now: later, limit: 10, leaseSeconds: 30, owner: "t").count
                == 1
        )
        // Without --store, the store of the relay's configuration.
        let config = directory.url.appendingPathComponent("relay.json").path
        try Data(#"{"storage": {"sqlitePath": "\#(path)"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let again = try await CommandTests.run(["storage", "end-pending", "--config", config, "--app", "gone"])
        #expect(again.status == 0 && again.stdout.contains(#""deliveries":0"#), "\(again.stdout) \(again.stderr)")
        // An id the store knows nothing of: a mistake, said so.
        let unknown = try await CommandTests.run(["storage", "end-pending", "--config", config, "--app", "gnoe"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no device, room member or pending work of app 'gnoe'"))
        #expect(unknown.stdout.isEmpty)
        for app in ["", "gone app"] {
            let bad = try await CommandTests.run(["storage", "end-pending", "--store", "sqlite:\(path)", "--app", app])
            #expect(bad.status == 2 && bad.stderr.contains("--app: an app id is 1 to 64"), "\(app): \(bad.stderr)")
        }
    }

    /// A PostgreSQL schema with no store is refused, as a SQLite path with none is, and none is made there.
    @Test func anEmptyPostgreSQLSchemaIsRefusedAndLeftEmpty() async throws {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        for command in ["end-pending", "requery-done"] {
            let refused = try await CommandTests.run([
                "storage", command, "--store", "postgres:\(url)", "--app", "chat",
            ])
            #expect(refused.status == 1 && refused.stderr.contains("holds no PushRelay store"), "\(refused.stderr)")
        }
        #expect(try PostgresStore.holdsStore(url: url) == false)
        let store = try PostgresStore(url: url, logger: .disabled())
        #expect(try PostgresStore.holdsStore(url: url))
        let run = ["storage", "end-pending", "--store", "postgres:\(url)", "--app", "chat"]
        let unknown = try await CommandTests.run(run)
        #expect(unknown.status == 1 && unknown.stderr.contains("no device, room member or pending work of app 'chat'"))
        try await store.addMember(appId: "chat", roomId: "room-1", userId: "ann", notify: nil, at: StorageCopyTests.t0)
        let ended = try await CommandTests.run(run)
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(
            ended.stdout.contains(#"{"app":"chat","badgeUpdates":0,"deliveries":0,"feedback":0}"#),
            "\(ended.stdout)"
        )
    }
}
