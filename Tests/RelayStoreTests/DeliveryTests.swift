import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

@Suite struct DeliveryTests {
    typealias F = StoreFixtures

    /// Up to `limit` of app-a's deliveries due at `now`, claimed by `owner` for 30 seconds.
    static func claim(
        _ store: any Store,
        at now: Date,
        limit: Int,
        owner: String = F.owner
    ) async throws
        -> [DeliveryJob]
    {
        try await store.claimDueDeliveries(appId: "app-a", now: now, limit: limit, leaseSeconds: 30, owner: owner)
    }

    /// bob has tokens 1...3; one notification to them, created at t0.
    func storeWithThreeDeliveries(_ kind: StoreKind) async throws -> (any Store, UUID) {
        let store = try await kind.makeStore()
        for n in 1...3 { try await store.register(F.token(n), user: "bob", at: F.time(-10)) }
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(outcome.devices == 3)
        return (store, outcome.notificationId)
    }

    @Test(arguments: StoreKind.allCases) func claimedJobsCarryTheNotificationAndTheDevice(kind: StoreKind) async throws
    {
        let (store, id) = try await storeWithThreeDeliveries(kind)
        #expect(
            try await store.claimDueDeliveries(now: F.time(-1), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty
        )
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.count == 3)
        #expect(jobs.map(\.deliveryId) == jobs.map(\.deliveryId).sorted())
        let job = try #require(jobs.first)
        let n = F.notification(messageId: job.content.message.messageId)
        #expect(job.notificationId == id && job.appId == "app-a" && job.token.scope == "sandbox")
        #expect(job.content.sendAs == n.sendAs && job.content.expiration == n.expiration)
        #expect(job.content.message == n.message && job.content.createdAt == n.createdAt)
        #expect(job.attempts == 0 && job.deviceRegisteredAt == F.time(-10))
        #expect(job.pushId == PushIdentifier.forDelivery(job.deliveryId, of: id))
    }

    /// A delivery row holds no notification id: its notification is the one whose run of delivery ids holds
    /// it. One claim takes jobs of three notifications, in an order that goes back to the first (a retry of
    /// its delivery comes due after the others), and each carries its own notification and payload.
    @Test(arguments: StoreKind.allCases) func eachJobCarriesTheNotificationWhoseRunHoldsIt(kind: StoreKind) async throws
    {
        let store = try await kind.makeStore()
        for n in 1...2 { try await store.register(F.token(n), user: "bob", at: F.time(-10)) }
        var notifications: [NewNotification] = []
        var ids: [UUID] = []
        for (index, text) in ["one", "two", "three"].enumerated() {
            var n = F.notification(at: F.time(Double(index)))
            n.message.content = .text(text)
            notifications.append(n)
            ids.append(try await store.createNotification(n, recipients: .init(roomId: "room-1")).notificationId)
        }
        let first = try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner)
        #expect(first.map(\.notificationId) == [ids[0]])
        let retried = try #require(first.first)
        try await store.complete([(retried.deliveryId, .retry(at: F.time(1.5), status: 503, reason: nil))], at: F.t0)
        let jobs = try await store.claimDueDeliveries(now: F.time(2), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.map(\.notificationId) == [ids[0], ids[1], ids[1], ids[0], ids[2], ids[2]])
        for job in jobs {
            let index = try #require(ids.firstIndex(of: job.notificationId))
            #expect(job.content.message == notifications[index].message)
            #expect(job.pushId == PushIdentifier.forDelivery(job.deliveryId, of: ids[index]))
        }
        #expect(jobs[3].deliveryId == retried.deliveryId && jobs[3].attempts == 1)
        let view = try #require(try await store.notification(appId: "app-a", id: ids[1]))
        #expect(view.deliveries.map(\.deliveryId) == [jobs[1].deliveryId, jobs[2].deliveryId])
        #expect(view.deliveries.allSatisfy { $0.createdAt == F.time(1) && $0.updatedAt == F.time(1) })
    }

    /// The first delivery of a notification in a claim may be one the claim ends (its device deleted): the
    /// others still carry the notification's content.
    @Test(arguments: StoreKind.allCases) func jobsAfterAnEndedFirstDeliveryCarryTheContent(kind: StoreKind) async throws
    {
        let (store, id) = try await storeWithThreeDeliveries(kind)
        let view = try #require(try await store.notification(appId: "app-a", id: id))
        let first = try #require(view.deliveries.min { $0.deliveryId < $1.deliveryId })
        let token = try #require((1...3).map(F.token).first { $0.value == first.token })
        #expect(try await store.deleteDevice(appId: "app-a", token: token))
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.count == 2 && !jobs.contains { $0.deliveryId == first.deliveryId })
        for job in jobs {
            #expect(job.notificationId == id)
            #expect(job.content.message == F.notification(messageId: job.content.message.messageId).message)
        }
    }

    @Test(arguments: StoreKind.allCases) func leasesKeepClaimedRowsFromBeingClaimedAgain(kind: StoreKind) async throws {
        let (store, _) = try await storeWithThreeDeliveries(kind)
        let first = try await store.claimDueDeliveries(now: F.t0, limit: 2, leaseSeconds: 30, owner: F.owner)
        #expect(first.count == 2)
        let second = try await store.claimDueDeliveries(now: F.time(1), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(second.count == 1)
        #expect(Set(first.map(\.deliveryId)).isDisjoint(with: second.map(\.deliveryId)))
        #expect(
            try await store.claimDueDeliveries(now: F.time(29), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty
        )
        // After the first lease expires, only its rows come back.
        let expired = try await store.claimDueDeliveries(now: F.time(30.5), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(Set(expired.map(\.deliveryId)) == Set(first.map(\.deliveryId)))
        try await store.releaseLeases(owner: F.owner)
        #expect(
            try await store.claimDueDeliveries(now: F.time(31), limit: 10, leaseSeconds: 30, owner: F.owner).count == 3
        )
    }

    @Test(arguments: StoreKind.allCases) func completedRowsAreNeverClaimedAndRetriesReturnAtTheirTime(
        kind: StoreKind
    ) async throws {
        let (store, id) = try await storeWithThreeDeliveries(kind)
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        try await store.complete(
            [
                (jobs[0].deliveryId, .sent),
                (jobs[1].deliveryId, .failed(status: 400, reason: "BadDeviceToken")),
                (jobs[2].deliveryId, .retry(at: F.time(60), status: 503, reason: "ServiceUnavailable")),
            ],
            at: F.time(1)
        )
        try await store.releaseLeases(owner: F.owner)
        #expect(
            try await store.claimDueDeliveries(now: F.time(59), limit: 10, leaseSeconds: 30, owner: F.owner).isEmpty
        )
        let retried = try await store.claimDueDeliveries(now: F.time(60), limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(retried.map(\.deliveryId) == [jobs[2].deliveryId])
        #expect(retried[0].attempts == 1 && retried[0].pushId == jobs[2].pushId)
        #expect(try await store.pendingDeliveryCount() == 1)
        #expect(try await store.hasPendingDeliveries())

        let (summary, deliveries) = try #require(try await store.notification(appId: "app-a", id: id))
        #expect(summary.counts == DeliveryCounts(pending: 1, sent: 1, failed: 1))
        let sent = try #require(deliveries.first { $0.deliveryId == jobs[0].deliveryId })
        #expect(sent.status == .sent && sent.sentAt == F.time(1) && sent.lastStatus == 200 && sent.attempts == 1)
        let failed = try #require(deliveries.first { $0.deliveryId == jobs[1].deliveryId })
        #expect(failed.status == .failed && failed.lastReason == "BadDeviceToken" && failed.nextAttemptAt == nil)
        let pending = try #require(deliveries.first { $0.deliveryId == jobs[2].deliveryId })
        #expect(pending.nextAttemptAt == F.time(60) && pending.lastStatus == 503 && pending.updatedAt == F.time(1))
    }

    @Test(arguments: StoreKind.allCases) func aRetiredTokenRetiresTheDeviceAndItsOtherPendingDeliveries(
        kind: StoreKind
    ) async throws {
        let (store, first) = try await storeWithThreeDeliveries(kind)
        let second = try await store.createNotification(
            F.notification(at: F.time(5)),
            recipients: .init(roomId: "room-1")
        )
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner).first
        )
        try await store.complete(
            [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(-5)))],
            at: F.time(1)
        )
        #expect(try await store.device(appId: "app-a", token: job.token)?.state == .retired)
        #expect(try await store.deviceCounts() == [.live: 2, .retired: 1])
        // The device's other delivery is ended by the next claim, which skips it and still fills its limit.
        let later = try await store.claimDueDeliveries(now: F.time(100), limit: 4, leaseSeconds: 30, owner: F.owner)
        #expect(later.count == 4 && !later.contains { $0.token == job.token })
        let firstCounts = try #require(try await store.notification(appId: "app-a", id: first)).summary.counts
        #expect(firstCounts == DeliveryCounts(pending: 2, retired: 1))
        let (secondSummary, secondDeliveries) = try #require(
            try await store.notification(appId: "app-a", id: second.notificationId)
        )
        #expect(secondSummary.counts == DeliveryCounts(pending: 2, retired: 1))
        let retired = try #require(secondDeliveries.first { $0.token == job.token.value })
        #expect(retired.status == .retired && retired.lastReason == "Unregistered" && retired.attempts == 0)
    }

    @Test(arguments: StoreKind.allCases) func a410OlderThanTheLastRegistrationLeavesTheDeviceLive(
        kind: StoreKind
    ) async throws {
        let (store, _) = try await storeWithThreeDeliveries(kind)
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner).first
        )
        try await store.complete(
            [(job.deliveryId, .retired(status: 410, reason: "Unregistered", invalidSince: F.time(-20)))],
            at: F.time(1)
        )
        #expect(try await store.device(appId: "app-a", token: job.token)?.state == .live)
    }

    @Test(arguments: StoreKind.allCases) func aBatchOfAThousandCompletesInOneCall(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        for n in 0..<50 { try await store.register(F.token(n), user: "u\(n)") }
        for _ in 0..<20 {
            _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        }
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 5000, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.count == 1000)
        try await store.complete(jobs.map { ($0.deliveryId, .sent) }, at: F.time(1))
        #expect(try await store.pendingDeliveryCount() == 0)
        #expect(try await !store.hasPendingDeliveries())
        try await store.releaseLeases(owner: F.owner)
        #expect(
            try await store.claimDueDeliveries(now: F.time(2), limit: 5000, leaseSeconds: 30, owner: F.owner).isEmpty
        )
    }

    @Test func storeCallsRunOnTheStoreThread() async throws {
        let store = try SQLiteStore.temporary()
        #expect(!store.isOnStoreThread)
        let inside = await store.withConnection { _ in store.isOnStoreThread }
        #expect(inside)
    }

    /// Two relays on one database (on a SQLite file a mistake, but not a dangerous one): the leases are in
    /// the database, so neither hands out a delivery the other holds.
    @Test(arguments: StoreKind.allCases) func twoStoresOnOneFileNeverClaimTheSameDelivery(kind: StoreKind) async throws
    {
        do {
            let database = try await kind.makeDatabase()
            let a = try database.open()
            let b = try database.open()
            for n in 0..<10 { try await a.register(F.token(n), user: "u\(n)") }
            _ = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            let first = try await Self.claim(a, at: F.t0, limit: 4)
            let second = try await Self.claim(b, at: F.t0, limit: 10, owner: F.otherOwner)
            let third = try await Self.claim(a, at: F.t0, limit: 10)
            #expect(first.count == 4 && second.count == 6 && third.isEmpty)
            #expect(Set(first.map(\.deliveryId)).isDisjoint(with: second.map(\.deliveryId)))
            // Once b's leases have run out, a takes those deliveries again (at least once).
            let later = try await Self.claim(a, at: F.time(31), limit: 10)
            #expect(Set(later.map(\.deliveryId)) == Set((first + second).map(\.deliveryId)))
        }
    }

    /// A hand-back releases only the deliveries it names: the others of their run may still be in flight (a
    /// relay hands back its queued jobs after a failed write while its sends go on), so no relay may take them.
    @Test(arguments: StoreKind.allCases) func aHandBackReleasesOnlyTheDeliveriesItNames(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let a = try database.open()
        let b = try database.open()
        for n in 0..<5 { try await a.register(F.token(n), user: "u\(n)") }
        _ = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let taken = try await Self.claim(a, at: F.t0, limit: 5).map(\.deliveryId)
        #expect(taken.count == 5)
        // The second and the fourth are handed back; the others of the run are still being sent.
        try await a.releaseClaims([taken[1], taken[3]], owner: F.owner)
        let other = try await Self.claim(b, at: F.time(1), limit: 10, owner: F.otherOwner)
        #expect(other.map(\.deliveryId) == [taken[1], taken[3]])
        // The rest keep their lease to its end, then are due again (at least once).
        let later = try await Self.claim(b, at: F.time(31), limit: 10, owner: F.otherOwner)
        #expect(later.map(\.deliveryId) == [taken[0], taken[2], taken[4]])
    }

    /// Deliveries another relay hands back, or whose lease ran out, are taken by the next claim of a relay
    /// whose claims go on from a cursor already past them, not once that cursor is a lease old.
    @Test(arguments: StoreKind.allCases) func endedLeasesBehindACursorAreTakenAtTheNextClaim(
        kind: StoreKind
    ) async throws {
        let database = try await kind.makeDatabase()
        let a = try database.open()
        let b = try database.open()
        for n in 0..<8 { try await a.register(F.token(n), user: "u\(n)") }
        _ = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let claim = { (store: any Store, owner: String, at: Date, limit: Int, lease: Int) in
            try await store.claimDueDeliveries(appId: "app-a", now: at, limit: limit, leaseSeconds: lease, owner: owner)
                .map(\.deliveryId)
        }
        let held = try await claim(b, F.otherOwner, F.t0, 2, 10)
        let first = try await claim(a, F.owner, F.t0, 2, 60)
        #expect(held.count == 2 && first.count == 2 && first[0] > held[1])
        // b stops and hands its first delivery back: a's next claim, whose cursor is past it, takes it.
        try await b.releaseClaims([held[0]], owner: F.otherOwner)
        let second = try await claim(a, F.owner, F.time(1), 2, 60)
        #expect(second.first == held[0])
        // b's other delivery, its lease run out at t0 + 10 s, is taken by a's claim after that.
        let third = try await claim(a, F.owner, F.time(11), 2, 60)
        #expect(third.first == held[1])
    }

    /// Accepted pushes are recorded a run of consecutive ids at a time: a batch in any order, with gaps and
    /// other outcomes among them, records exactly its own rows.
    @Test(arguments: StoreKind.allCases) func aBatchOfResultsRecordsExactlyItsOwnDeliveries(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        for n in 0..<10 { try await store.register(F.token(n), user: "u\(n)") }
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let ids = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner).map(
            \.deliveryId
        )
        #expect(ids.count == 10)
        let sent = [ids[9], ids[0], ids[5], ids[2], ids[1], ids[4], ids[5]]  // unordered, one twice
        try await store.complete(
            sent.map { ($0, DeliveryOutcome.sent) } + [
                (ids[3], .retry(at: F.time(60), status: 429, reason: "TooManyRequests")),
                (ids[6], .failed(status: 400, reason: "BadTopic")),
            ],
            at: F.time(1)
        )
        let (summary, deliveries) = try #require(
            try await store.notification(appId: "app-a", id: outcome.notificationId)
        )
        #expect(summary.counts == DeliveryCounts(pending: 3, sent: 6, failed: 1))
        let byId = Dictionary(uniqueKeysWithValues: deliveries.map { ($0.deliveryId, $0) })
        for id in Set(sent) {
            #expect(byId[id]?.status == .sent && byId[id]?.attempts == 1 && byId[id]?.lastStatus == 200)
            #expect(byId[id]?.sentAt == F.time(1) && byId[id]?.nextAttemptAt == nil)
        }
        #expect(byId[ids[3]]?.status == .pending && byId[ids[3]]?.lastReason == "TooManyRequests")
        #expect(byId[ids[3]]?.sentAt == nil && byId[ids[3]]?.attempts == 1)
        #expect(byId[ids[6]]?.status == .failed && byId[ids[6]]?.lastReason == "BadTopic")
        for id in [ids[7], ids[8]] { #expect(byId[id]?.status == .pending && byId[id]?.attempts == 0) }
    }

    /// A claim leases its jobs a run of ids at a time; rows inside the run that another store holds keep
    /// that store's lease, and rows of undeliverable devices are ended, not leased.
    @Test func aClaimLeasesOnlyWhatItTookInsideItsRun() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("shared.sqlite").path
            let a = try SQLiteStore(path: path, logger: .disabled())
            let b = try SQLiteStore(path: path, logger: .disabled())
            for n in 0..<7 { try await a.register(F.token(n), user: "u\(n)") }
            _ = try await a.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
            let first = try await Self.claim(a, at: F.t0, limit: 2)
            // b, 20 s later, passes over a's two and takes the next two until t0 + 50 s.
            let held = try await Self.claim(b, at: F.time(20), limit: 2)
            #expect(Set(held.map(\.deliveryId)).isDisjoint(with: first.map(\.deliveryId)))
            // The last device is deleted before a claims again.
            #expect(try await a.deleteDevice(appId: "app-a", token: F.token(6)))
            // a's leases have run out at t0 + 31 s: it takes its two again and the rest, around b's two.
            let again = try await Self.claim(a, at: F.time(31), limit: 10)
            #expect(again.count == 4)
            // Each delivery's live leases at t0 + 31 s: the ends of the runs that cover it.
            let leases = try await a.withConnection { db in
                try db.withStatement(
                    """
                    SELECT dl.id, dl.status, l.lease_until FROM deliveries AS dl
                    LEFT JOIN delivery_leases AS l ON l.app_id = dl.app_id AND l.next_attempt_at = dl.next_attempt_at
                        AND dl.id BETWEEN l.first_id AND l.last_id AND l.lease_until >= ?1
                    ORDER BY dl.id
                    """
                ) { row in
                    try row.bind(1, F.time(31))
                    var leases: [Int64: (status: String, until: [Int])] = [:]
                    while try row.step() {
                        leases[row.int64(0), default: (row.string(1), [])].until +=
                            row.optionalInt(2).map { [$0] } ?? []
                    }
                    return leases
                }
            }
            let ms = { (date: Date) in Int(SQLiteStatement.milliseconds(date)) }
            for job in again { #expect(leases[job.deliveryId]?.until == [ms(F.time(61))]) }
            for job in held { #expect(leases[job.deliveryId]?.until == [ms(F.time(50))]) }
            #expect(leases.values.filter { $0.status == "failed" }.map(\.until) == [[]])
        }
    }

    /// A retry that comes back at once (ExpiredProviderToken) in the millisecond it was claimed at is due a
    /// millisecond later, out of its run's lease, so it is not held back until that lease ends.
    @Test(arguments: StoreKind.allCases) func aRetryAtOnceLeavesTheLeaseOfTheRunItWasClaimedIn(
        kind: StoreKind
    ) async throws {
        let (store, _) = try await storeWithThreeDeliveries(kind)
        let jobs = try await Self.claim(store, at: F.t0, limit: 10)
        try await store.complete(
            [(jobs[1].deliveryId, .retry(at: F.t0, status: 403, reason: "ExpiredProviderToken"))],
            at: F.t0
        )
        let later = F.t0.addingTimeInterval(0.001)
        let again = try await Self.claim(store, at: later, limit: 10)
        #expect(again.map(\.deliveryId) == [jobs[1].deliveryId])
        #expect(again.first?.attempts == 1)
    }

    /// A claim that keeps going on from its cursor still comes back, once a lease has passed, for a delivery
    /// behind it whose lease ran out with no result recorded.
    @Test(arguments: StoreKind.allCases) func aDeliveryWhoseLeaseRanOutIsClaimedAgainWhileTheCursorIsMidway(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        for n in 0..<4 { try await store.register(F.token(n), user: "u\(n)") }
        _ = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        let first = try await Self.claim(store, at: F.t0, limit: 2)
        #expect(first.count == 2)
        try await store.complete([(first[1].deliveryId, .sent)], at: F.time(1))
        // first[0] never gets a result. Within the lease, the cursor goes on to the third delivery ...
        let second = try await Self.claim(store, at: F.time(2), limit: 1)
        #expect(second.count == 1 && second[0].deliveryId > first[1].deliveryId)
        // ... and after it, first[0] is taken again before the fourth.
        let third = try await Self.claim(store, at: F.time(31), limit: 1)
        #expect(third.map(\.deliveryId) == [first[0].deliveryId])
    }
}
