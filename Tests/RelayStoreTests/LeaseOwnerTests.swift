import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

/// Several relays on one database: every lease names the instance that took it. A relay never takes another's
/// live lease, releases only its own (at start, or handing back unsent claims at a stop), and takes a dead
/// one's once it expires; an instance id is held by one live store at a time.
@Suite struct LeaseOwnerTests {
    typealias F = StoreFixtures

    /// Two stores (two relays) on a new database with ten devices in room-1 and one notification to them.
    func twoRelays(_ kind: StoreKind) async throws -> (database: TestDatabase, a: any Store, b: any Store) {
        let database = try await kind.makeDatabase()
        let a = try database.open()
        let b = try database.open()
        for n in 0..<10 { try await a.register(F.token(n), user: "u\(n)", at: F.time(-10)) }
        _ = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        return (database, a, b)
    }

    func claim(_ store: any Store, _ owner: String, at seconds: Double = 0, limit: Int = 10) async throws -> [Int64] {
        try await store.claimDueDeliveries(now: F.time(seconds), limit: limit, leaseSeconds: 30, owner: owner)
            .map(\.deliveryId)
    }

    @Test(arguments: StoreKind.allCases) func anInstanceReleasesOnlyItsOwnLeases(kind: StoreKind) async throws {
        let (database, a, b) = try await twoRelays(kind)
        let taken = try await claim(a, F.owner, limit: 4)
        #expect(taken.count == 4)
        // b starts: releasing its own leases leaves a's live ones alone.
        try await b.releaseLeases(owner: F.otherOwner)
        let rest = try await claim(b, F.otherOwner, at: 1)
        #expect(rest.count == 6 && Set(rest).isDisjoint(with: taken))
        // a restarts with its id: it takes back its own four at once, b's six stay b's.
        let restarted = try database.open()
        try await restarted.releaseLeases(owner: F.owner)
        #expect(Set(try await claim(restarted, F.owner, at: 2)) == Set(taken))
        #expect(try await claim(a, F.owner, at: 2).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aDeadInstancesLeasesAreTakenWhenTheyExpire(kind: StoreKind) async throws {
        let (_, a, b) = try await twoRelays(kind)
        let taken = try await claim(a, F.owner)
        #expect(taken.count == 10)
        #expect(try await claim(b, F.otherOwner, at: 29).isEmpty)
        #expect(Set(try await claim(b, F.otherOwner, at: 30.5)) == Set(taken))
    }

    /// A graceful stop: the sends in flight are recorded, the jobs still queued handed back; the other relay
    /// takes exactly those at once, and a hand-back by another owner changes nothing.
    @Test(arguments: StoreKind.allCases) func handedBackClaimsAreClaimableAtOnce(kind: StoreKind) async throws {
        let (_, a, b) = try await twoRelays(kind)
        let taken = try await claim(a, F.owner, limit: 6)
        let (sent, unsent) = (Array(taken.prefix(2)), Array(taken.dropFirst(2)))
        try await a.complete(sent.map { ($0, .sent) }, at: F.time(1))
        try await b.releaseClaims(unsent, owner: F.otherOwner)
        let others = try await claim(b, F.otherOwner, at: 1)
        #expect(others.count == 4 && Set(others).isDisjoint(with: taken))
        try await a.releaseClaims(unsent, owner: F.owner)
        #expect(Set(try await claim(b, F.otherOwner, at: 2)) == Set(unsent))
        #expect(try await a.pendingDeliveryCount() == 8)
    }

    /// A relay that stalled past its lease while its sends were in flight: the other relay took the
    /// deliveries and ended some of them. The stalled relay's late results (a retry after its transfers timed
    /// out, an acceptance, a dead token) keep those ends, so no delivery is reopened and sent again; the
    /// deliveries still pending take them; a dead token is retired all the same.
    @Test(arguments: StoreKind.allCases) func aStalledRelaysLateResultsKeepWhatTheOtherRelayEnded(
        kind: StoreKind
    ) async throws {
        let database = try await kind.makeDatabase()
        let (a, b) = (try database.open(), try database.open())
        for n in 0..<6 { try await a.register(F.token(n), user: "u\(n)", at: F.time(-10)) }
        let notification = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            .notificationId
        let stalled = try await claim(a, F.owner)
        let ids = try await claim(b, F.otherOwner, at: 30.5).sorted()
        #expect(ids == stalled.sorted() && ids.count == 6)
        try await b.complete(
            [(ids[0], .sent), (ids[1], .sent), (ids[2], .failed(status: 400, reason: "BadTopic"))],
            at: F.time(31)
        )
        try await b.complete(
            [(ids[3], .retired(status: 410, reason: "Unregistered", invalidSince: F.time(30)))],
            at: F.time(31)
        )
        let retry = DeliveryOutcome.retry(at: F.time(60), status: nil, reason: "transport")
        try await a.complete(
            [(ids[0], retry), (ids[1], .sent), (ids[2], retry), (ids[3], .sent), (ids[4], retry)],
            at: F.time(32)
        )
        let lateToken = try #require(try await a.notification(appId: "app-a", id: notification)?.deliveries)
            .first { $0.deliveryId == ids[1] }?.token
        try await a.complete(
            [(ids[1], .retired(status: 410, reason: "Unregistered", invalidSince: F.time(30)))],
            at: F.time(33)
        )
        let (summary, records) = try #require(try await a.notification(appId: "app-a", id: notification))
        let byId = Dictionary(uniqueKeysWithValues: records.map { ($0.deliveryId, $0) })
        #expect(byId[ids[0]]?.status == .sent && byId[ids[0]]?.attempts == 1)
        #expect(byId[ids[1]]?.status == .sent && byId[ids[1]]?.attempts == 1)
        #expect(byId[ids[2]]?.status == .failed && byId[ids[3]]?.status == .retired)
        #expect(byId[ids[4]]?.status == .pending && byId[ids[4]]?.attempts == 1)
        #expect(summary.counts == DeliveryCounts(pending: 2, sent: 2, failed: 1, retired: 1))
        let token = try PushToken(parsing: try #require(lateToken), platform: .ios)
        #expect(try await a.device(appId: "app-a", token: token)?.state == .retired)
    }

    @Test(arguments: StoreKind.allCases) func feedbackLeasesHaveOwnersToo(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let a = try database.open()
        let b = try database.open()
        for relay in [a, b] { await relay.setFeedbackPolicy(FeedbackPolicy(appIds: ["app-a"], lifetimeSeconds: 600)) }
        try await a.register(F.token(1), user: "bob", at: F.time(-10))
        _ = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let job = try #require(try await claim(a, F.owner).first)
        try await a.complete([(job, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(-5)))], at: F.t0)
        #expect(try await a.claimDueFeedback(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner).count == 1)
        try await b.releaseLeases(owner: F.otherOwner)
        #expect(try await b.claimDueFeedback(now: F.time(2), limit: 10, leaseSeconds: 30, owner: F.otherOwner).isEmpty)
        try await a.releaseLeases(owner: F.owner)
        #expect(
            try await b.claimDueFeedback(now: F.time(3), limit: 10, leaseSeconds: 30, owner: F.otherOwner).count == 1
        )
    }

    /// Two live relays given one instance id: the second is refused; once the first store is closed (its
    /// process ended), the id is free again.
    @Test(arguments: StoreKind.allCases) func anInstanceIdIsHeldByOneLiveStore(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        do {
            let first = try database.open()
            try await first.claimInstance(F.owner)
            try await first.claimInstance(F.owner)  // held already: kept
            let second = try database.open()
            if kind == .postgres { try await second.claimInstance(F.otherOwner) }
            let error = await #expect(throws: StoreError.self) { try await second.claimInstance(F.owner) }
            #expect(error?.code == .instanceInUse)
            #expect(error?.message.contains("delivery.instanceId") == true)
        }
        try await Self.claimOnceReleased(database, F.owner)
    }

    /// Claims `id` on a new store of `database` once the closed stores let go of it: the last reference
    /// to a closed store may still be on its store thread for a moment after its last call answered.
    static func claimOnceReleased(_ database: TestDatabase, _ id: String) async throws {
        for _ in 0..<100 {
            do {
                return try await database.open().claimInstance(id)
            } catch let error as StoreError where error.code == .instanceInUse {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try await database.open().claimInstance(id)
    }

    /// A SQLite file serves one relay: a second live store on it is refused whatever its id, naming the
    /// holder's; once the first is closed, another id takes the file.
    @Test func aSQLiteFileIsHeldByOneLiveRelayWhateverItsId() async throws {
        let database = try await StoreKind.sqlite.makeDatabase()
        do {
            let first = try database.open()
            try await first.claimInstance("relay-a")
            let second = try database.open()
            let error = await #expect(throws: StoreError.self) { try await second.claimInstance("relay-b") }
            #expect(error?.code == .instanceInUse)
            #expect(error?.message.contains("'relay-a'") == true, "\(error?.message ?? "")")
        }
        try await Self.claimOnceReleased(database, "relay-b")
    }

    /// Another spelling of the file's path (a symbolic link, a `./` detour) meets the same lock.
    @Test func aLinkToTheFileMeetsTheSameLock() async throws {
        let database = try await StoreKind.sqlite.makeDatabase()
        let folder = (database.location as NSString).deletingLastPathComponent
        let first = try database.open()
        try await first.claimInstance("relay-a")
        let link = "\(folder)/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database.location)
        for path in [link, "\(folder)/./relay.sqlite"] {
            let second = try SQLiteStore(path: path, logger: .disabled())
            let error = await #expect(throws: StoreError.self) { try await second.claimInstance("relay-b") }
            #expect(error?.code == .instanceInUse, "\(path)")
        }
    }

    /// A second name of the file itself (a hard link) would take a lock of its own, and SQLite would keep a
    /// second write-ahead log for it: a file with two names is refused, under either name.
    @Test func aHardLinkedFileIsRefused() async throws {
        let database = try await StoreKind.sqlite.makeDatabase()
        let folder = (database.location as NSString).deletingLastPathComponent
        _ = try database.open()
        let link = "\(folder)/hard.sqlite"
        try FileManager.default.linkItem(atPath: database.location, toPath: link)
        for path in [link, database.location] {
            let store = try SQLiteStore(path: path, logger: .disabled())
            let error = await #expect(throws: StoreError.self) { try await store.claimInstance("relay-a") }
            #expect(error?.code == .open && error?.message.contains("2 names (hard links)") == true, "\(path)")
        }
        try FileManager.default.removeItem(atPath: link)
        try await SQLiteStore(path: database.location, logger: .disabled()).claimInstance("relay-a")
    }
}
