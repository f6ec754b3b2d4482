import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// Badge updates on every engine (``Store/claimDueBadgeUpdates(appId:now:limit:leaseSeconds:owner:)``): a
/// read that lowers a user's total gives each of its live devices ONE pending update, coalesced and spaced
/// by the app's window, counted when claimed, leased like deliveries, ended by the token-fate rules.
@Suite struct BadgeUpdateStoreTests {
    typealias F = StoreFixtures
    typealias U = UnreadStoreTests
    typealias D = DittoMirrorTests

    /// Badges for app-a with a 10-second window.
    static let policy = UnreadPolicy(badgeAppIds: ["app-a"], badgeUpdateSeconds: ["app-a": 10])

    /// A store whose clock reads t0 + 100 s, with alice (token 1) and bob (APNs token 2, FCM token 2)
    /// in room-1, and three messages of alice's at 1, 2 and 3 s unread by bob.
    static func store(_ kind: StoreKind, policy: UnreadPolicy = Self.policy) async throws -> (any Store, Date) {
        let now = F.time(100)
        let store = try await kind.makeStore(timeSource: ManualTimeSource(now: now))
        await store.setUnreadPolicy(policy)
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "bob")
        try await store.register(F.fcmToken(2), user: "bob")
        for second in 1...3 { try await U.post(store, from: "alice", at: Double(second)) }
        // The messages' own deliveries are out of the way.
        _ = try await store.claimDueDeliveries(now: now, limit: 100, leaseSeconds: 3600, owner: F.owner)
        return (store, now)
    }

    static func read(_ store: any Store, _ user: String, at seconds: Double) async throws {
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: user, at: F.time(seconds))
    }

    static func claim(_ store: any Store, at now: Date, owner: String = F.owner) async throws -> [BadgeUpdateJob] {
        try await store.claimDueBadgeUpdates(appId: "app-a", now: now, limit: 100, leaseSeconds: 30, owner: owner)
    }

    @Test(arguments: StoreKind.allCases) func readsCoalesceIntoOneUpdatePerDeviceWithTheCountAtClaim(
        kind: StoreKind
    ) async throws {
        let (store, now) = try await Self.store(kind)
        try await Self.read(store, "bob", at: 1)
        try await Self.read(store, "bob", at: 2)
        // A read that lowers nothing (alice has nothing unread) makes none.
        try await Self.read(store, "alice", at: 3)
        #expect(try await F.count("badge_updates", in: store) == 2)
        #expect(try await store.appsWithDueBadgeUpdates(now: now) == ["app-a"])
        let jobs = try await Self.claim(store, at: now)
        #expect(Set(jobs.map(\.token)) == [F.token(2), F.fcmToken(2)])
        #expect(jobs.allSatisfy { $0.badge == 1 && $0.attempts == 0 })
        // Leased: neither this owner nor another takes them again.
        #expect(try await Self.claim(store, at: now, owner: F.otherOwner).isEmpty)
        #expect(try await store.appsWithDueBadgeUpdates(now: now).isEmpty)
        try await store.completeBadgeUpdates(jobs.map { ($0.updateId, .sent) }, at: now)
        #expect(try await Self.claim(store, at: now.addingTimeInterval(60)).isEmpty)
        // The next read is due a window after the last send: not before, then with the count of then.
        try await Self.read(store, "bob", at: 3)
        #expect(try await Self.claim(store, at: now.addingTimeInterval(9.9)).isEmpty)
        let next = try await Self.claim(store, at: now.addingTimeInterval(10))
        #expect(next.count == 2 && next.allSatisfy { $0.badge == 0 })
    }

    @Test(arguments: StoreKind.allCases) func aReadWhileAnUpdateIsInFlightMakesTheNextOne(kind: StoreKind) async throws
    {
        let (store, now) = try await Self.store(kind)
        try await Self.read(store, "bob", at: 1)
        let jobs = try await Self.claim(store, at: now)
        #expect(jobs.count == 2 && jobs.allSatisfy { $0.badge == 2 })
        try await Self.read(store, "bob", at: 3)
        try await store.completeBadgeUpdates(jobs.map { ($0.updateId, .sent) }, at: now.addingTimeInterval(1))
        #expect(try await Self.claim(store, at: now.addingTimeInterval(10.9)).isEmpty)
        let next = try await Self.claim(store, at: now.addingTimeInterval(11))
        #expect(next.count == 2 && next.allSatisfy { $0.badge == 0 })
    }

    @Test(arguments: StoreKind.allCases) func nothingIsWrittenWithoutBadges(kind: StoreKind) async throws {
        let (store, now) = try await Self.store(kind, policy: UnreadPolicy())
        try await Self.read(store, "bob", at: 3)
        #expect(try await F.count("badge_updates", in: store) == 0)
        #expect(try await Self.claim(store, at: now).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func resultsFollowTheTokenFateRules(kind: StoreKind) async throws {
        let (store, now) = try await Self.store(kind)
        try await Self.read(store, "bob", at: 1)
        let jobs = try await Self.claim(store, at: now)
        let apns = try #require(jobs.first { $0.token == F.token(2) })
        let fcm = try #require(jobs.first { $0.token == F.fcmToken(2) })
        try await store.completeBadgeUpdates(
            [
                (apns.updateId, .retired(status: 410, reason: "Unregistered", invalidSince: now)),
                (fcm.updateId, .retry(at: now.addingTimeInterval(5), status: 503, reason: "UNAVAILABLE")),
            ],
            at: now
        )
        // The dead token retires its device; the retried update comes back at its time, one attempt on.
        #expect(try await store.device(appId: "app-a", token: F.token(2))?.state == .retired)
        #expect(try await store.device(appId: "app-a", token: F.fcmToken(2))?.state == .live)
        #expect(try await Self.claim(store, at: now.addingTimeInterval(4.9)).isEmpty)
        let retried = try await Self.claim(store, at: now.addingTimeInterval(5))
        #expect(retried.map(\.token) == [F.fcmToken(2)] && retried.first?.attempts == 1)
        // A retired device gets no more updates; a deleted one's pending update ends at its claim.
        try await store.completeBadgeUpdates([(retried[0].updateId, .sent)], at: now.addingTimeInterval(5))
        try await Self.read(store, "bob", at: 2)
        #expect(try await store.deleteDevice(appId: "app-a", token: F.fcmToken(2)))
        #expect(try await Self.claim(store, at: now.addingTimeInterval(60)).isEmpty)
        #expect(try await F.count("badge_updates", in: store) == 0)
    }

    @Test(arguments: StoreKind.allCases) func relaysOnOneDatabaseClaimEachUpdateOnce(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let now = F.time(100)
        let stores = try (0..<3).map { _ in try database.open(timeSource: ManualTimeSource(now: now)) }
        for store in stores { await store.setUnreadPolicy(Self.policy) }
        let first = stores[0]
        try await first.register(F.token(1), user: "alice")
        for n in 2...21 { try await first.register(F.token(n), user: "user-\(n)") }
        for second in 1...2 { try await U.post(first, from: "alice", at: Double(second)) }
        for n in 2...21 { try await Self.read(first, "user-\(n)", at: 1) }
        // Three relays claim at once, a few at a time, until none is left: each device's update once.
        let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    var ids: [Int64] = []
                    while true {
                        let jobs = try await store.claimDueBadgeUpdates(
                            appId: "app-a",
                            now: now,
                            limit: 3,
                            leaseSeconds: 30,
                            owner: "relay-\(index)"
                        )
                        if jobs.isEmpty { return ids }
                        ids += jobs.map(\.updateId)
                    }
                }
            }
            return try await group.reduce(into: [Int64]()) { $0 += $1 }
        }
        #expect(claimed.count == 20 && Set(claimed).count == 20)
    }

    @Test(arguments: StoreKind.allCases) func aDittoReadElsewhereGivesTheUsersDevicesAnUpdate(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"], badgeAppIds: ["app-a"]))
        let read = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply([try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(read)"}"#)], to: store)
        try await D.apply(
            [
                try U.dittoMessage("m-1", txn: 2, ageSeconds: 50),
                try U.dittoMessage("m-2", txn: 3, ageSeconds: 40),
            ],
            to: store
        )
        _ = try await store.claimDueDeliveries(now: D.at, limit: 100, leaseSeconds: 3600, owner: F.owner)
        // A newer user document that reads nothing new makes no update; one that reads m-1 does.
        try await D.apply([try D.user("bob", txn: 4, name: "Bob", subscriptions: #"{"room-1":"\#(read)"}"#)], to: store)
        #expect(try await Self.claim(store, at: D.at).isEmpty)
        let later = Timestamp.rfc3339(D.at.addingTimeInterval(-45))
        try await D.apply([try D.user("bob", txn: 5, subscriptions: #"{"room-1":"\#(later)"}"#)], to: store)
        let jobs = try await Self.claim(store, at: D.at)
        #expect(jobs.map(\.token) == [F.token(1)] && jobs.first?.badge == 1)
    }

    @Test(arguments: StoreKind.allCases) func levelsLeavingAndClosingLowerTotalsLikeReads(kind: StoreKind) async throws
    {
        let (store, now) = try await Self.store(kind)
        // A level that leaves bob's count as it is (mentions still counts) makes no update.
        try await store.setRoomLevel(
            appId: "app-a",
            roomId: "room-1",
            userId: "bob",
            .set(.mentions),
            scope: .members
        )
        #expect(try await F.count("badge_updates", in: store) == 0)
        // Muting room-1 lowers his total from 3: each of his devices gets an update.
        try await store.setRoomLevel(appId: "app-a", roomId: "room-1", userId: "bob", .set(.none), scope: .members)
        #expect(Set(try await Self.claim(store, at: now).map(\.badge)) == [0])
        // carol joins room-2 herself and has one unread there; the backend closing it removes her.
        try await store.register(F.token(3), user: "carol", rooms: [])
        _ = try await store.addMember(
            appId: "app-a",
            roomId: "room-2",
            userId: "carol",
            notify: nil,
            origin: .user,
            at: F.t0
        )
        try await U.post(store, from: "alice", room: "room-2", at: 4)
        _ = try await store.claimDueDeliveries(now: now, limit: 100, leaseSeconds: 3600, owner: F.owner)
        #expect(try await U.unread(store, "carol").total == 1)
        #expect(try await store.setRoomMembership(appId: "app-a", roomId: "room-2", membership: .closed, at: now) == 1)
        let jobs = try await Self.claim(store, at: now)
        #expect(jobs.map(\.token) == [F.token(3)] && jobs.first?.badge == 0)
    }
}
