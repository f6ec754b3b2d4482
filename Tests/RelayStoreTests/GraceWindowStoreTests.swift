import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// The grace window and deletes on every engine: deliveries due after their message's time plus the delay,
/// cancelled in the claim when the recipient read the room meanwhile, and a Ditto delete that cancels what is
/// pending, removes what was sent and leaves the unread counts.
@Suite struct GraceWindowStoreTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests
    typealias U = UnreadStoreTests

    /// D's settings with a 30-second grace window.
    static let settings: DittoApplySettings = {
        var settings = D.settings
        settings.pushDelaySeconds = 30
        return settings
    }()

    /// Claims app-a's due deliveries at `now`.
    static func claim(_ store: any Store, at now: Date) async throws -> [DeliveryJob] {
        try await store.claimDueDeliveries(appId: "app-a", now: now, limit: 100, leaseSeconds: 600, owner: F.owner)
    }

    /// Notification "m-1" of alice's message to room-1 at 1 s, with the 30-second window.
    static func createMessage(_ store: any Store) async throws {
        var n = F.notification(messageId: "m-1", at: F.time(1))
        n.delaySeconds = 30
        _ = try await store.createNotification(
            n,
            recipients: RecipientSelection(roomId: "room-1", excludeUserId: "alice")
        )
    }

    /// The deliveries of the notification `messageId` names, by token.
    static func deliveries(
        _ store: any Store,
        messageId: String
    ) async throws -> (summary: NotificationSummary, byToken: [PushToken: DeliveryRecord]) {
        let id = try #require(try await store.notificationId(appId: "app-a", messageId: messageId))
        let (summary, records) = try #require(try await store.notification(appId: "app-a", id: id))
        return (summary, Dictionary(uniqueKeysWithValues: records.map { (F.token(text: $0.token), $0) }))
    }

    @Test(arguments: StoreKind.allCases) func aWebhookDeliveryIsCancelledByAReadInsideTheWindow(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "bob")
        try await store.register(F.token(3), user: "carol")
        try await Self.createMessage(store)
        // Not due inside the window.
        #expect(try await Self.claim(store, at: F.time(30)).isEmpty)
        // bob reads up to the message's time on another device; carol read only before it.
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(1))
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "carol", at: F.time(0.5))
        let jobs = try await Self.claim(store, at: F.time(31))
        let byToken = Dictionary(uniqueKeysWithValues: jobs.map { ($0.token, $0) })
        #expect(byToken.count == 2)
        #expect(byToken[F.token(2)]?.cancelReason == "read")
        #expect(byToken[F.token(3)]?.cancelReason == nil)
        let (summary, records) = try await Self.deliveries(store, messageId: "m-1")
        #expect(summary.counts == DeliveryCounts(pending: 1, cancelled: 1))
        #expect(records[F.token(2)]?.status == .cancelled && records[F.token(2)]?.lastReason == "read")
        #expect(records[F.token(2)]?.attempts == 0)
        // A cancelled delivery is never claimed again.
        try await store.releaseLeases(owner: F.owner)
        #expect(try await Self.claim(store, at: F.time(40)).map(\.token) == [F.token(3)])
    }

    @Test(arguments: StoreKind.allCases) func oneClaimCancelsForEachMessageItsOwnRoomsReaders(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice", rooms: ["room-1", "room-2"])
        try await store.register(F.token(2), user: "bob", rooms: ["room-1", "room-2"])
        try await store.register(F.token(3), user: "carol", rooms: ["room-1", "room-2"])
        for (message, room) in [("m-1", "room-1"), ("m-2", "room-2")] {
            var n = F.notification(room: room, messageId: message, at: F.time(1))
            n.delaySeconds = 30
            _ = try await store.createNotification(
                n,
                recipients: RecipientSelection(roomId: room, excludeUserId: "alice")
            )
        }
        // bob read room-1 past both messages' time, carol room-2; neither read the other room.
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(2))
        _ = try await store.markRead(appId: "app-a", roomId: "room-2", userId: "carol", at: F.time(2))
        let jobs = try await Self.claim(store, at: F.time(31))
        let cancelled = jobs.map {
            "\($0.content.message.roomId) \($0.token == F.token(2) ? "bob" : "carol") \($0.cancelReason ?? "-")"
        }
        #expect(cancelled.sorted() == ["room-1 bob read", "room-1 carol -", "room-2 bob -", "room-2 carol read"])
        #expect(
            try await Self.deliveries(store, messageId: "m-1").summary.counts
                == DeliveryCounts(pending: 1, cancelled: 1)
        )
        #expect(
            try await Self.deliveries(store, messageId: "m-2").summary.counts
                == DeliveryCounts(pending: 1, cancelled: 1)
        )
    }

    /// A claim smaller than the room's readers (an old message most of the room read, as a retry's is) finds
    /// the readers among its own jobs all the same: every reader's delivery is cancelled, claim by claim, and
    /// the one member who did not read is sent.
    @Test(arguments: StoreKind.allCases) func smallClaimsInARoomMostlyReadCancelEachReader(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        let members = (0..<40).map { String(format: "reader-%02d", $0) } + ["carol"]
        for (index, user) in members.enumerated() { try await store.register(F.token(index + 2), user: user) }
        try await Self.createMessage(store)
        for user in members where user != "carol" {
            _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: user, at: F.time(2))
        }
        var sent: [PushToken] = []
        var cancelled = 0
        while true {
            let jobs = try await store.claimDueDeliveries(
                appId: "app-a",
                now: F.time(31),
                limit: 2,
                leaseSeconds: 600,
                owner: F.owner
            )
            guard !jobs.isEmpty else { break }
            for job in jobs {
                if job.cancelReason == "read" { cancelled += 1 } else { sent.append(job.token) }
            }
        }
        #expect(cancelled == 40)
        #expect(sent == [F.token(members.count + 1)])
    }

    /// Ids are compared by their bytes: a user whose id only looks like a reader's (the same text with a
    /// combining accent instead of a precomposed one) is not taken for that reader.
    @Test(arguments: StoreKind.allCases) func aReaderWithALookAlikeIdCancelsOnlyItsOwnDelivery(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "jos\u{E9}")
        try await store.register(F.token(3), user: "jose\u{301}")
        try await Self.createMessage(store)
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "jos\u{E9}", at: F.time(2))
        let jobs = try await Self.claim(store, at: F.time(31))
        let byToken = Dictionary(uniqueKeysWithValues: jobs.map { ($0.token, $0.cancelReason ?? "-") })
        #expect(byToken == [F.token(2): "read", F.token(3): "-"])
    }

    @Test(arguments: StoreKind.allCases) func aReadAfterTheWindowChangesNothing(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice")
        try await store.register(F.token(2), user: "bob")
        try await Self.createMessage(store)
        let jobs = try await Self.claim(store, at: F.time(31))
        #expect(jobs.count == 1 && jobs[0].cancelReason == nil)
        try await store.complete([(jobs[0].deliveryId, .sent)], at: F.time(32))
        _ = try await store.markRead(appId: "app-a", roomId: "room-1", userId: "bob", at: F.time(33))
        let (summary, _) = try await Self.deliveries(store, messageId: "m-1")
        #expect(summary.counts == DeliveryCounts(sent: 1))
    }

    @Test(arguments: StoreKind.allCases) func aDittoDeliveryIsCancelledByASubscriptionsUpdate(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.user("carol", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.room("room-1", txn: 1, name: "Team"),
            ],
            to: store
        )
        // Written 10 s before it arrives: due 20 s after its arrival.
        _ = try await store.applyDittoEvents(
            [try D.message("m-1", txn: 2, ageSeconds: 10)],
            appId: "app-a",
            settings: Self.settings,
            at: D.at
        )
        #expect(try await Self.claim(store, at: D.at.addingTimeInterval(19)).isEmpty)
        // bob's app marks the room read 5 s later (Ditto moves subscriptions[room-1]).
        let read = Timestamp.rfc3339(D.at.addingTimeInterval(5))
        _ = try await store.applyDittoEvents(
            [try D.user("bob", txn: 3, subscriptions: #"{"room-1":"\#(read)"}"#)],
            appId: "app-a",
            settings: Self.settings,
            at: D.at.addingTimeInterval(5)
        )
        let jobs = try await Self.claim(store, at: D.at.addingTimeInterval(20))
        let byToken = Dictionary(uniqueKeysWithValues: jobs.map { ($0.token, $0.cancelReason) })
        #expect(byToken == [F.token(1): "read", F.token(2): nil])  // bob is person 1, carol 2
        let (summary, _) = try await Self.deliveries(store, messageId: "m-1")
        #expect(summary.counts == DeliveryCounts(pending: 1, cancelled: 1))
    }

    @Test(arguments: StoreKind.allCases) func aMessageThatArrivesLateIsDueAtOnce(kind: StoreKind) async throws {
        let store = try await D.store(kind)
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-200))
        try await D.apply([try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#)], to: store)
        _ = try await store.applyDittoEvents(
            [try D.message("m-1", txn: 2, ageSeconds: 100)],
            appId: "app-a",
            settings: Self.settings,
            at: D.at
        )
        #expect(try await Self.claim(store, at: D.at).map(\.token) == [F.token(1)])
    }

    /// A JS delete document of `deleted`, by `sender`.
    static func delete(_ id: String, of deleted: String, txn: Int, from sender: String = "alice") throws -> DittoEvent {
        try U.dittoMessage(
            id,
            txn: txn,
            from: sender,
            ageSeconds: 0,
            extra: #","archivedMessage":"\#(deleted)","isDeleted":true"#
        )
    }

    @Test(arguments: StoreKind.allCases) func aDeleteCancelsWhatIsPendingAndRemovesWhatWasSent(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await store.register(F.fcmToken(7), user: "bob", rooms: [])
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.user("carol", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.message("m-1", txn: 2, ageSeconds: 10),
            ],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 1)
        // bob's phone and Android device got it; carol's is to be retried.
        let jobs = try await Self.claim(store, at: D.at)
        #expect(jobs.count == 3)
        let carol = try #require(jobs.first { $0.token == F.token(2) })
        try await store.complete(
            jobs.map { job in
                job.token == carol.token
                    ? (job.deliveryId, .retry(at: D.at.addingTimeInterval(60), status: 503, reason: "Unavailable"))
                    : (job.deliveryId, .sent)
            },
            at: D.at
        )
        try await D.apply([try Self.delete("d-1", of: "m-1", txn: 3)], to: store)
        let (original, records) = try await Self.deliveries(store, messageId: "m-1")
        #expect(original.counts == DeliveryCounts(sent: 2, cancelled: 1))
        #expect(records[F.token(2)]?.status == .cancelled && records[F.token(2)]?.lastReason == "deleted")
        // The removal: its own notification, to the two devices that showed the message, due at once.
        let (removal, removals) = try await Self.deliveries(store, messageId: "d-1")
        #expect(removal.kind == .removal && removal.roomId == "room-1" && removal.senderId == "alice")
        #expect(Set(removals.keys) == [F.token(1), F.fcmToken(7)])
        let sent = try await Self.claim(store, at: D.at)
        #expect(Set(sent.map(\.token)) == [F.token(1), F.fcmToken(7)])
        #expect(sent.allSatisfy { $0.content.message.removedMessageId == "m-1" && $0.cancelReason == nil })
        // The deleted message no longer counts.
        #expect(try await U.unread(store, "bob").total == 0)
        // A replayed delete removes nothing twice.
        try await D.apply([try Self.delete("d-1", of: "m-1", txn: 3)], to: store)
        #expect(try await Self.deliveries(store, messageId: "d-1").byToken.count == 2)
        try await store.releaseLeases(owner: F.owner)
        #expect(try await Self.claim(store, at: D.at.addingTimeInterval(1)).count == 2)
    }

    @Test(arguments: StoreKind.allCases) func aDeleteOfAMessageNoDeviceGotRemovesNothing(kind: StoreKind) async throws {
        let store = try await D.store(kind)
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.message("m-1", txn: 2, ageSeconds: 10),
                // The delete arrives before anything was sent, and one of an unknown message changes nothing.
                try Self.delete("d-1", of: "m-1", txn: 3),
                try Self.delete("d-2", of: "m-unknown", txn: 4),
            ],
            to: store
        )
        let (original, _) = try await Self.deliveries(store, messageId: "m-1")
        #expect(original.counts == DeliveryCounts(cancelled: 1))
        #expect(try await store.notificationId(appId: "app-a", messageId: "d-1") == nil)
        #expect(try await store.notificationId(appId: "app-a", messageId: "d-2") == nil)
        #expect(try await Self.claim(store, at: D.at).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func unreadCountsDropAfterADeleteAndStayThroughAnEdit(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        await store.setUnreadPolicy(UnreadPolicy(dittoAppIds: ["app-a"]))
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try U.dittoMessage("m-1", txn: 2, ageSeconds: 30),
                try U.dittoMessage("m-2", txn: 3, ageSeconds: 20),
            ],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 2)
        // A JS edit of m-1: the original archived, the edit keeping its createdOn.
        try await D.apply(
            [
                try U.dittoMessage("m-1", txn: 4, ageSeconds: 30, extra: #","isArchived":true"#),
                try U.dittoMessage("e-1", txn: 5, ageSeconds: 30, extra: #","archivedMessage":"m-1","isEdited":true"#),
            ],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 2)
        // The edit pushes nothing.
        #expect(try await store.notificationId(appId: "app-a", messageId: "e-1") == nil)
        // A delete of m-2, arriving before the archiving upsert of m-2 does.
        try await D.apply([try Self.delete("d-2", of: "m-2", txn: 6)], to: store)
        #expect(try await U.unread(store, "bob").total == 1)
        try await D.apply(
            [try U.dittoMessage("m-2", txn: 7, ageSeconds: 20, extra: #","isArchived":true"#)],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 1)
        // A delete that arrives before its message: the message never counts, and is not pushed.
        try await D.apply(
            [try Self.delete("d-3", of: "m-3", txn: 8), try U.dittoMessage("m-3", txn: 9, ageSeconds: 5)],
            to: store
        )
        #expect(try await U.unread(store, "bob").total == 1)
        #expect(try await store.notificationId(appId: "app-a", messageId: "m-3") == nil)
    }

    @Test(arguments: StoreKind.allCases) func aDeliveryCancelledInFlightStaysCancelledWhateverItsResult(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        let before = Timestamp.rfc3339(D.at.addingTimeInterval(-100))
        try await D.apply(
            [
                try D.user("bob", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.user("carol", txn: 1, subscriptions: #"{"room-1":"\#(before)"}"#),
                try D.message("m-1", txn: 2, ageSeconds: 10),
            ],
            to: store
        )
        let jobs = try await Self.claim(store, at: D.at)
        #expect(jobs.count == 2)
        // The delete lands while both are being sent.
        try await D.apply([try Self.delete("d-1", of: "m-1", txn: 3)], to: store)
        try await store.complete(
            jobs.map { job in
                job.token == F.token(1)
                    ? (job.deliveryId, .sent)
                    : (job.deliveryId, .retry(at: D.at.addingTimeInterval(5), status: 503, reason: "Unavailable"))
            },
            at: D.at.addingTimeInterval(1)
        )
        let (summary, records) = try await Self.deliveries(store, messageId: "m-1")
        #expect(summary.counts == DeliveryCounts(cancelled: 2))
        #expect(records.values.allSatisfy { $0.lastReason == "deleted" && $0.attempts == 1 })
        try await store.releaseLeases(owner: F.owner)
        #expect(try await Self.claim(store, at: D.at.addingTimeInterval(60)).isEmpty)
    }
}
