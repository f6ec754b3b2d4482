import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// Who made a membership, and what closing a room does with it, on every engine.
@Suite struct MembershipOriginTests {
    typealias F = StoreFixtures

    /// bob added by the backend, carol joined herself, dave joined himself and was then named by the backend.
    func populatedStore(_ kind: StoreKind) async throws -> any Store {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "alice", rooms: [])
        try await store.register(F.token(2), user: "bob", rooms: [])
        try await store.register(F.token(3), user: "carol", rooms: [])
        try await store.register(F.token(4), user: "dave", rooms: [])
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "bob", at: F.t0)
        try await store.join("carol")
        try await store.join("dave")
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "dave", at: F.time(1))
        return store
    }

    @Test(arguments: StoreKind.allCases) func membershipsRecordWhoMadeThem(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        let members = try await store.members(appId: "app-a", roomId: "room-1")
        #expect(members.map(\.userId) == ["bob", "carol", "dave"])
        #expect(members.map(\.origin) == [.backend, .user, .backend])
        // A user's own call never takes the backend's membership back; it still sets the level.
        let dave = try #require(try await store.join("dave", notify: .set(.none)))
        #expect(dave.origin == .backend && dave.notify == NotifyLevel.none && dave.joinedAt == F.t0)
    }

    /// Closing drops the users' own memberships in the same write; the backend's stay and receive.
    @Test(arguments: StoreKind.allCases) func closingARoomLeavesOnlyTheBackendsMembers(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        let removed = try await store.setRoomMembership(
            appId: "app-a",
            roomId: "room-1",
            membership: .closed,
            at: F.time(2)
        )
        #expect(removed == 1)
        #expect(try await store.members(appId: "app-a", roomId: "room-1").map(\.userId) == ["bob", "dave"])
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(try await store.pendingTokens(of: outcome.notificationId) == [F.token(2), F.token(4)])
        // Opening again removes nobody.
        #expect(
            try await store.setRoomMembership(appId: "app-a", roomId: "room-1", membership: .open, at: F.time(3)) == 0
        )
        #expect(try await store.members(appId: "app-a", roomId: "room-1").count == 2)
    }

    /// A user's own join of a room whose own rule is closed changes nothing, through either call.
    @Test(arguments: StoreKind.allCases) func aUsersOwnJoinOfAClosedRoomAddsNothing(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        try await store.setRoomMembership(appId: "app-a", roomId: "room-1", membership: .closed, at: F.time(2))
        #expect(try await store.join("carol") == nil)
        #expect(try await store.join("bob", notify: .set(.none)) == nil)
        try await store.setRoomMembership(appId: "app-a", roomId: "room-2", membership: .open, at: F.time(2))
        _ = try await store.upsertDevice(
            appId: "app-a",
            token: try F.token(3).registered(scope: "sandbox"),
            userId: "carol",
            rooms: ["room-1", "room-2", "room-3"],
            origin: .user,
            at: F.time(3)
        )
        #expect(try await store.member(appId: "app-a", roomId: "room-1", userId: "carol") == nil)
        #expect(try await store.member(appId: "app-a", roomId: "room-2", userId: "carol")?.origin == .user)
        #expect(try await store.member(appId: "app-a", roomId: "room-3", userId: "carol")?.origin == .user)
        #expect(try await store.member(appId: "app-a", roomId: "room-1", userId: "bob")?.notify == nil)
        #expect(try await store.roomLevel(appId: "app-a", roomId: "room-1", userId: "bob") == nil)
    }

    /// A member sets its level in any room; nobody becomes a member that way, and without `membersOnly` (an
    /// app whose members Ditto holds) any user's level is kept.
    @Test(arguments: StoreKind.allCases) func roomLevelsOfMembersOnlyChangeOnlyMembers(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        try await store.setRoomMembership(appId: "app-a", roomId: "room-1", membership: .closed, at: F.time(2))
        let level = { (user: String) in try await store.roomLevel(appId: "app-a", roomId: "room-1", userId: user) }
        #expect(
            try await store.setRoomLevel(
                appId: "app-a",
                roomId: "room-1",
                userId: "bob",
                .set(.none),
                scope: .members
            )
        )
        let bob = try #require(try await store.member(appId: "app-a", roomId: "room-1", userId: "bob"))
        #expect(bob.notify == NotifyLevel.none && bob.origin == .backend)
        #expect(try await level("bob") == NotifyLevel.none)
        #expect(
            try await store.setRoomLevel(
                appId: "app-a",
                roomId: "room-1",
                userId: "bob",
                .userDefault,
                scope: .members
            )
        )
        #expect(try await level("bob") == nil)
        #expect(
            try await !store.setRoomLevel(
                appId: "app-a",
                roomId: "room-1",
                userId: "carol",
                .set(.none),
                scope: .members
            )
        )
        #expect(try await store.member(appId: "app-a", roomId: "room-1", userId: "carol") == nil)
        #expect(try await level("carol") == nil)
        #expect(
            try await store.setRoomLevel(
                appId: "app-a",
                roomId: "room-1",
                userId: "carol",
                .set(.mentions),
                scope: .anyRoom(atMost: nil)
            )
        )
        #expect(try await level("carol") == .mentions)
        #expect(try await store.member(appId: "app-a", roomId: "room-1", userId: "carol") == nil)
    }

    /// Leaving a room, or being removed by its closing, forgets the member's own level for it: joining again
    /// starts from the user's default.
    @Test(arguments: StoreKind.allCases) func leavingForgetsTheRoomLevel(kind: StoreKind) async throws {
        let store = try await populatedStore(kind)
        try await store.join("carol", notify: .set(.none))
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "bob", notify: .set(.mentions), at: F.t0)
        #expect(try await store.removeMember(appId: "app-a", roomId: "room-1", userId: "bob"))
        #expect(try await store.roomLevel(appId: "app-a", roomId: "room-1", userId: "bob") == nil)
        try await store.setRoomMembership(appId: "app-a", roomId: "room-1", membership: .closed, at: F.time(2))
        #expect(try await store.roomLevel(appId: "app-a", roomId: "room-1", userId: "carol") == nil)
        try await store.addMember(appId: "app-a", roomId: "room-1", userId: "carol", at: F.time(3))
        #expect(try await store.member(appId: "app-a", roomId: "room-1", userId: "carol")?.notify == nil)
    }

    /// Users joining while the backend closes the room, through four connections (four relays on
    /// PostgreSQL): every join lands before the close (and is removed by it) or is refused after it.
    @Test(arguments: StoreKind.allCases) func joinsRacingACloseNeverOutliveIt(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let stores = try (0..<4).map { _ in try database.open() }
        let closer = try database.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    for n in 0..<60 {
                        _ = try await store.addMember(
                            appId: "app-a",
                            roomId: "room-1",
                            userId: "u\(index)-\(n)",
                            notify: nil,
                            origin: .user,
                            at: F.t0
                        )
                    }
                }
            }
            group.addTask {
                // Close once some joins are in, while the others still run.
                while try await closer.members(appId: "app-a", roomId: "room-1").count < 20 {
                    try Task.checkCancellation()
                    await Task.yield()
                }
                try await closer.setRoomMembership(appId: "app-a", roomId: "room-1", membership: .closed, at: F.t0)
            }
            try await group.waitForAll()
        }
        #expect(try await closer.members(appId: "app-a", roomId: "room-1").isEmpty)
    }

    /// Rows written before memberships had an origin: members of a room whose own rule is closed who joined
    /// at or after the rule was set are the backend's; every other row is taken for a user's own join.
    @Test(arguments: StoreKind.allCases) func earlierMembershipsMigrate(kind: StoreKind) async throws {
        let (t0, t1, t2) = (1_800_000_000_000, 1_800_000_001_000, 1_800_000_002_000)
        let rows = """
            INSERT INTO rooms (app_id, room_id, membership, updated_at)
            VALUES ('app-a', 'closed-room', 'closed', \(t1)), ('app-a', 'open-room', 'open', \(t1));
            INSERT INTO room_members (app_id, room_id, user_id, muted, joined_at)
            VALUES ('app-a', 'closed-room', 'before', false, \(t0)), ('app-a', 'closed-room', 'at', false, \(t1)),
                ('app-a', 'closed-room', 'after', true, \(t2)), ('app-a', 'open-room', 'later', false, \(t2)),
                ('app-a', 'no-rule', 'any', false, \(t2));
            """
        let database = try await kind.makeDatabase()
        try Self.writeBeforeOrigins(database, rows: rows)
        let store = try database.open()
        let origins = { (room: String) in
            try await store.members(appId: "app-a", roomId: room).map { "\($0.userId):\($0.origin.rawValue)" }
        }
        #expect(try await origins("closed-room") == ["after:backend", "at:backend", "before:user"])
        #expect(try await origins("open-room") == ["later:user"])
        #expect(try await origins("no-rule") == ["any:user"])
        // A muted member is a member at level `none` (the levels step); the others follow their default.
        #expect(
            try await store.member(appId: "app-a", roomId: "closed-room", userId: "after")?.notify == NotifyLevel.none
        )
        #expect(try await store.member(appId: "app-a", roomId: "closed-room", userId: "at")?.notify == nil)
    }

    /// The database as a build that knew only the schema steps before the origin step left it, holding `rows`
    /// (statements in the dialect both engines speak).
    static func writeBeforeOrigins(_ database: TestDatabase, rows: String) throws {
        switch database.kind {
        case .sqlite:
            let step = try #require(SQLiteMigrations.steps.firstIndex { $0.contains("ADD COLUMN origin") })
            try FileManager.default.createDirectory(
                atPath: (database.location as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try FeedbackStoreTests.oldDatabase(at: database.location, version: step, rows: rows)
        case .postgres:
            let step = try #require(PostgresMigrations.steps.firstIndex { $0.contains("ADD COLUMN origin") })
            try PostgresMigrations.database(at: database.location, version: step).execute(rows)
        }
    }
}

extension Store {
    /// `user` joins room-1 of app-a itself.
    @discardableResult
    func join(_ user: String, notify: RoomLevelChange? = nil) async throws -> RoomMember? {
        try await addMember(
            appId: "app-a",
            roomId: "room-1",
            userId: user,
            notify: notify,
            origin: .user,
            at: StoreFixtures.t0
        )
    }
}
