import Foundation
import RelayCore
import RelayServer
import RelayStore
import Synchronization
import Testing

@testable import RelaySQLite

/// `/readyz` needs no credential, so a storm of calls must not each write to the store.
@Suite struct ReadinessRefreshTests {
    /// The machine's clocks, counting the store's reads of the wall clock: `checkWritable()` reads it once
    /// for the row it writes, and nothing else runs on the store here.
    final class CountingTime: TimeSource {
        private let reads = Atomic<Int>(0)
        var count: Int { reads.load(ordering: .relaxed) }
        var monotonic: Duration { SystemTimeSource().monotonic }
        var now: Date {
            reads.wrappingAdd(1, ordering: .relaxed)
            return Date()
        }
    }

    @Test func aStormOfChecksWritesToTheStoreAtMostOnceASecond() async throws {
        let time = CountingTime()
        let store = try SQLiteStore.temporary(timeSource: time)
        try await store.checkWritable()
        let perWrite = time.count
        try #require(perWrite >= 1)
        let readiness = Readiness(store: store, apps: [])
        let before = time.count
        let started = ContinuousClock.now
        await readiness.probeOnce()
        let probes = Task { await readiness.run() }
        defer { probes.cancel() }
        var answers: [Readiness.Report] = []
        for _ in 0..<20 {
            answers += await withTaskGroup(of: Readiness.Report.self) { group in
                for _ in 0..<25 { group.addTask { await readiness.check() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let writes = (time.count - before) / perWrite
        #expect(answers.count == 500 && answers.allSatisfy { $0.ready && $0.checks == ["storage": "ok"] })
        #expect(writes >= 1)
        #expect(writes <= Int(seconds.rounded(.down)) + 1, "\(writes) writes in \(seconds) s")
    }

    /// A store that takes a write but whose outbox cannot be read sends nothing, so it is not ready: here the
    /// page of `deliveries_due` is overwritten, as a restore over a stale WAL corrupts a file.
    @Test func aStoreWhoseOutboxCannotBeReadIsNotReady() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-relay-corrupt-\(UUID().lowercasedString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.sqlite").path
        let (page, size) = try await {
            let store = try SQLiteStore(path: path, logger: .disabled())
            let readiness = Readiness(store: store, apps: [])
            await readiness.probeOnce()
            #expect(await readiness.check().ready)
            return try await store.withConnection {
                (
                    try $0.scalar("SELECT rootpage FROM sqlite_schema WHERE name = 'deliveries_due'"),
                    try $0.scalar("PRAGMA page_size")
                )
            }
        }()
        // Released: closed, its WAL folded into the file.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        try file.seek(toOffset: UInt64((page - 1) * size))
        try file.write(contentsOf: Data(repeating: 0xFF, count: 64))
        try file.close()
        let corrupt = Readiness(store: try SQLiteStore(path: path, logger: .disabled()), apps: [])
        await corrupt.probeOnce()
        let report = await corrupt.check()
        #expect(!report.ready && report.checks["storage"]?.hasPrefix("unavailable") == true, "\(report.checks)")
    }

    /// Before its first probe a relay is not ready: nothing says its storage takes a write.
    @Test func notReadyBeforeTheFirstProbe() async throws {
        let readiness = Readiness(store: try SQLiteStore.temporary(), apps: [])
        let report = await readiness.check()
        #expect(!report.ready && report.checks == ["storage": "unavailable (not probed yet)"])
    }

    /// A stopping relay is unready whatever its storage says, on both listeners, so a load balancer sends it
    /// nothing more while it drains.
    @Test func aStoppingRelayIsNotReady() async throws {
        let readiness = Readiness(store: try SQLiteStore.temporary(), apps: [])
        await readiness.probeOnce()
        #expect(await readiness.check().ready)
        await readiness.beginStopping()
        let report = await readiness.check()
        #expect(!report.ready && report.checks == ["storage": "ok", "lifecycle": "stopping"])
        #expect(report.aggregate == ["storage": "ok", "lifecycle": "stopping"])
    }

    /// What a stranger sees names no app: the endpoint checks are summed up as `push`.
    @Test func theAggregateNamesNoApp() {
        let report = Readiness.Report(checks: ["storage": "ok", "apns:secret-app": "ok", "fcm:secret-app": "ok"])
        #expect(report.aggregate == ["storage": "ok", "push": "ok"])
        let failing = Readiness.Report(checks: [
            "storage": "unavailable (io)", "apns:a": "ok", "apns:b": "unreachable (connect)",
        ])
        #expect(failing.aggregate == ["storage": "unavailable (io)", "push": "1 of 2 failing"])
        #expect(!failing.ready)
        #expect(Readiness.Report(checks: ["storage": "ok"]).aggregate == ["storage": "ok"])
    }
}
