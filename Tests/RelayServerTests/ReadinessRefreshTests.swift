import APNsMock
import Foundation
import RelayCore
import RelayServer
import RelayStore
import RelayTestSupport
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

    /// A store that takes a write but that a call found damaged is not ready, from the next probe on and for
    /// good: its pool makes no more calls of it, the probe's write among them.
    @Test func aStoreACallFoundDamagedIsNotReady() async throws {
        let pool = StorePool(members: [try SQLiteStore.temporary()], logger: .disabled())
        let readiness = Readiness(store: pool, apps: [])
        await readiness.probeOnce()
        #expect(await readiness.check().ready)
        pool.health.record(StoreError(code: .corrupt, message: "database disk image is malformed"))
        for _ in 0..<2 {
            await readiness.probeOnce()
            let report = await readiness.check()
            #expect(!report.ready && report.checks == ["storage": "unavailable (corrupt)"], "\(report.checks)")
        }
    }

    /// A relay whose dispatcher cannot read its outbox sends nothing, so it is not ready: `push-relay serve`
    /// on a file whose `deliveries_due` page is overwritten (as a restore over a stale WAL corrupts one),
    /// though the probe's write still works, answers 503 once the dispatcher's read of the due apps met it,
    /// and refuses writes as storage unavailable: what it accepted now a restore would lose.
    @Test func aRelayWhoseOutboxCannotBeReadIsNotReady() async throws {
        try await withRelayTestBed(appCount: 1, script: MockScript(), configure: { _ in }) { bed in
            let path = bed.configuration.storage.sqlitePath
            _ = try SQLiteStore(path: path, logger: .disabled())
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            try SQLiteDamage.overwriteRootPage(of: "deliveries_due", in: path)
            let relay = bed.testRelay(mode: .process)
            try await relay.run {
                let admin = try #require(try relay.adminPort)
                let until = ContinuousClock.now + .seconds(30)
                var answer = try await TestRelay.get(port: admin, path: "/readyz")
                while answer.status == 200, ContinuousClock.now < until {
                    try await Task.sleep(for: .milliseconds(100))
                    answer = try await TestRelay.get(port: admin, path: "/readyz")
                }
                #expect(answer.status == 503 && answer.text.contains("unavailable (corrupt)"), "\(answer.text)")
                let api = try await TestRelay.get(port: try relay.port, path: "/readyz")
                #expect(api.status == 503 && api.text.contains("unavailable (corrupt)"), "\(api.text)")
                let registration = try await relay.call(
                    "POST",
                    "/v1/devices",
                    json: ["token": String(repeating: "ab", count: 32), "platform": "ios", "userId": "bob"],
                    bearer: bed.apps[0].apiKey
                )
                #expect(registration.status == 503, "\(registration.text)")
                #expect(registration.text.contains("storage_unavailable"), "\(registration.text)")
            }
        }
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
