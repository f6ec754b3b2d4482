import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// Notification levels on every engine: a user's own level for a room, else its default, else `all`; `mentions`
/// admits a message that names the user or any message of a DM; only explicit recipients that override levels
/// (the backend's) pass them.
@Suite struct NotifyLevelTests {
    typealias F = StoreFixtures
    typealias D = DittoMirrorTests

    /// Room-1 of app-a with alice (the sender) and, one device each (token n for ``D/people``[n]): bob at no
    /// level (`all`), carol `mentions` for the room, dave `none` for the room, erin `mentions` by default,
    /// frank `none` by default but `all` for the room.
    static func store(_ kind: StoreKind) async throws -> any Store {
        let store = try await kind.makeStore()
        for (n, user) in D.people.enumerated() { try await store.register(F.token(n), user: user) }
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "carol", notify: .set(.mentions), at: F.t0)
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "dave", notify: .set(.none), at: F.t0)
        try await store.setUserLevel(appId: "app-a", userId: "erin", .mentions)
        try await store.setUserLevel(appId: "app-a", userId: "frank", NotifyLevel.none)
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "frank", notify: .set(.all), at: F.t0)
        return store
    }

    /// Who gets a message of alice's in room-1 sent to `recipients`.
    static func reached(_ store: any Store, _ recipients: RecipientSelection) async throws -> Set<String> {
        let outcome = try await store.createNotification(F.notification(), recipients: recipients)
        let tokens = try await store.pendingTokens(of: outcome.notificationId)
        return Set(D.people.enumerated().filter { tokens.contains(F.token($0.offset)) }.map(\.element))
    }

    @Test(arguments: StoreKind.allCases) func theRoomsMembersGoByTheirLevels(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        let room = RecipientSelection(roomId: "room-1", excludeUserId: "alice")
        #expect(try await Self.reached(store, room) == ["bob", "frank"])
        var mentioning = room
        mentioning.mentionedUserIds = ["carol", "dave", "erin", "nobody"]
        #expect(try await Self.reached(store, mentioning) == ["bob", "carol", "erin", "frank"])
        var direct = room
        direct.isDirect = true
        #expect(try await Self.reached(store, direct) == ["bob", "carol", "erin", "frank"])
        // Even the backend's message to the room as a whole leaves out a member at `none`.
        direct.overridesLevels = true
        #expect(try await Self.reached(store, direct) == ["bob", "carol", "erin", "frank"])
    }

    @Test(arguments: StoreKind.allCases) func aUsersRecipientsGoByLevelsTheBackendsOverrideThem(
        kind: StoreKind
    ) async throws {
        let store = try await Self.store(kind)
        let named = ["bob", "carol", "dave", "erin", "frank"]
        let users = RecipientSelection(roomId: "room-1", userIds: named, overridesLevels: false, excludeUserId: "alice")
        #expect(try await Self.reached(store, users) == ["bob", "frank"])
        var mentioning = users
        mentioning.mentionedUserIds = ["dave", "erin"]
        #expect(try await Self.reached(store, mentioning) == ["bob", "erin", "frank"], "none is never reached")
        var backend = users
        backend.overridesLevels = true
        #expect(try await Self.reached(store, backend) == Set(named))
        // Levels are per room: room-2 has none of its own, so the defaults apply.
        let otherRoom = RecipientSelection(roomId: "room-2", userIds: named, overridesLevels: false)
        #expect(try await Self.reached(store, otherRoom) == ["bob", "carol", "dave"])
    }

    @Test(arguments: StoreKind.allCases) func theUserDefaultAppliesWhereTheRoomHasNoLevel(kind: StoreKind) async throws
    {
        let store = try await Self.store(kind)
        #expect(try await store.userLevel(appId: "app-a", userId: "erin") == .mentions)
        #expect(try await store.userLevel(appId: "app-a", userId: "bob") == nil)
        #expect(try await store.userLevel(appId: "app-b", userId: "erin") == nil, "levels are per app")
        try await store.setUserLevel(appId: "app-a", userId: "bob", NotifyLevel.none)
        try await store.setUserLevel(appId: "app-a", userId: "erin", nil)
        // carol's room level goes back to her default (all); frank's own `all` for the room still wins.
        try await store.setRoomLevel(appId: "app-a", roomId: "room-1", userId: "carol", .userDefault, scope: .members)
        #expect(try await store.member(appId: "app-a", roomId: "room-1", userId: "carol")?.notify == nil)
        let room = RecipientSelection(roomId: "room-1", excludeUserId: "alice")
        #expect(try await Self.reached(store, room) == ["carol", "erin", "frank"])
    }

    /// A stream message: each recipient by its level, with Ditto's mentions (the message's and the user
    /// documents') and DM rooms counting as mentions; a level needs no membership row.
    @Test(arguments: StoreKind.allCases) func streamMessagesGoByLevelsWithDittosMentionsAndDMs(
        kind: StoreKind
    ) async throws {
        let store = try await D.store(kind)
        let read = Timestamp.rfc3339(D.at.addingTimeInterval(-3600))
        let subscribed = "{\"room-1\":\"\(read)\"}"
        try await D.apply(
            [
                try D.room("room-1", txn: 1, name: "Team"),
                try D.room(
                    "dm-1",
                    txn: 1,
                    name: "Alice & Erin",
                    collection: "dm_rooms",
                    participants: ["alice", "erin"]
                ),
                try D.user("alice", txn: 1, name: "Alice"),
                try D.user("bob", txn: 1, subscriptions: subscribed),
                try D.user("carol", txn: 1, subscriptions: subscribed),
                try D.user("dave", txn: 1, subscriptions: subscribed),
                try D.user("erin", txn: 1, subscriptions: subscribed, mentions: #"{"room-1":["m-2"]}"#),
            ],
            to: store
        )
        for (user, level) in [("bob", NotifyLevel.mentions), ("carol", .mentions), ("dave", .none)] {
            try await store.setRoomLevel(
                appId: "app-a",
                roomId: "room-1",
                userId: user,
                .set(level),
                scope: .anyRoom(atMost: nil)
            )
        }
        try await store.setUserLevel(appId: "app-a", userId: "erin", .mentions)
        try await D.apply(
            [
                try D.message("m-1"),
                try D.message("m-2", txn: 2, mentions: ["carol", "dave"]),
                try D.message("d-1", txn: 3, room: "dm-1", collection: "dm_messages"),
            ],
            to: store
        )
        #expect(try await D.recipients(of: "m-1", in: store, users: D.people) == [])
        #expect(try await D.recipients(of: "m-2", in: store, users: D.people) == ["carol", "erin"])
        #expect(try await D.recipients(of: "d-1", in: store, users: D.people) == ["erin"])
    }
}
