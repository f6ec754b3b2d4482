import Foundation
import RelayCore
import RelayStore
import Testing

@testable import RelayOutbox
@testable import RelaySQLite

/// The `notification done` reports beside the flusher, on a real SQLite store: a report at most once an
/// interval, and none left behind when the flusher finishes.
@Suite struct NotificationDoneReportsTests {
    /// A store with one notification to `devices` devices of a room (tokens numbered from `firstDevice`),
    /// every delivery recorded sent; its id.
    static func doneNotification(
        in store: SQLiteStore,
        devices: Int,
        firstDevice: Int,
        message: String
    ) async throws -> UUID {
        for index in 0..<devices {
            let token = String(repeating: "a", count: 60) + String(format: "%04x", firstDevice + index)
            _ = try await store.upsertDevice(
                appId: "app",
                token: .apns(try DeviceToken(parsing: token, environment: .sandbox)),
                userId: "\(message)-user\(index)",
                rooms: ["room-\(message)"],
                at: Date()
            )
        }
        let chat = ChatMessage(roomId: "room-\(message)", senderId: "s", content: .text("hi"), messageId: message)
        let created = try await store.createNotification(
            NewNotification(appId: "app", message: chat, sendAs: "com.example.chat", createdAt: Date()),
            recipients: .init(roomId: "room-\(message)")
        )
        let jobs = try await store.claimDueDeliveries(now: Date(), limit: 100, leaseSeconds: 60, owner: "relay")
        #expect(jobs.count == devices)
        try await store.complete(jobs.map { ($0.deliveryId, .sent) }, at: Date())
        return created.notificationId
    }

    /// With an interval of an hour, the first notification handed over is reported at once and the second
    /// waits in the pause; `finish()` ends the pause and reports it, each once.
    @Test func finishEndsThePauseAndReportsWhatWaits() async throws {
        let store = try SQLiteStore.temporary()
        let lines = MemoryLogHandler()
        let reports = NotificationDoneReports(
            NotificationDoneLog(store: store, logger: Logger(label: "test", level: .debug, handler: lines)),
            interval: .seconds(3_600)
        )
        let first = try await Self.doneNotification(in: store, devices: 2, firstDevice: 0, message: "one")
        reports.add([("app", first)])
        let second = try await Self.doneNotification(in: store, devices: 3, firstDevice: 10, message: "two")
        for _ in 0..<600 where lines.entries.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        reports.add([("app", second), ("app", first)])
        // Held back while the interval runs: a quarter of a second is nothing of an hour.
        try await Task.sleep(for: .milliseconds(250))
        #expect(lines.entries.count == 1, "reported before the interval ended")
        // finish() in a task of its own: were the pause not ended, the second line would wait an hour.
        let finishing = Task { await reports.finish() }
        for _ in 0..<1_200 where lines.entries.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        try #require(lines.entries.count == 2, "finish() waited for the pause between reports")
        await finishing.value

        let done = lines.entries.filter { $0.message == "notification done" }
        #expect(done.map { $0.metadata["notification.id"] } == [first, second].map(\.lowercasedString))
        #expect(done.map { $0.metadata["deliveries.sent"] } == ["2", "3"])
    }

    /// A count the store cannot answer (another connection holds its write lock) logs a line, and the
    /// notification is counted again once the store answers: its line is not lost.
    @Test func aFailedCountIsCountedAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("done-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.sqlite").path
        let store = try SQLiteStore(path: path, logger: .disabled(), busyTimeoutMilliseconds: 50)
        let lines = MemoryLogHandler()
        let reports = NotificationDoneReports(
            NotificationDoneLog(store: store, logger: Logger(label: "test", level: .debug, handler: lines)),
            interval: .milliseconds(10),
            retryInterval: .milliseconds(50)
        )
        let id = try await Self.doneNotification(in: store, devices: 2, firstDevice: 0, message: "one")
        let blocker = try SQLiteConnection(path: path)
        try blocker.execute("BEGIN IMMEDIATE")
        reports.add([("app", id)])
        let failed = "counting the deliveries of finished notifications failed"
        for _ in 0..<600 where !lines.entries.contains(where: { $0.message == failed }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        // A store locked past its busy timeout is storage away, which the store pool's health logs once: the
        // loop's own line is at debug.
        #expect(lines.entries.contains { $0.level == .debug && $0.message == failed })
        try blocker.execute("ROLLBACK")
        for _ in 0..<600 where !lines.entries.contains(where: { $0.message == "notification done" }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        await reports.finish()
        let done = lines.entries.filter { $0.message == "notification done" }
        #expect(done.map { $0.metadata["notification.id"] } == [id.lowercasedString])
    }
}
