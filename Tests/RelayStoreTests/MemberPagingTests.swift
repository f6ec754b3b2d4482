import Foundation
import RelayCore
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// Pages of a room's members (`GET /v1/rooms/{roomId}/members?offset&limit`), on every engine.
@Suite struct MemberPagingTests {
    typealias F = StoreFixtures

    @Test(arguments: StoreKind.allCases) func pagesFollowUserIdsWithoutGapsOrRepeats(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let users = (0..<7).map { "user-\($0)" }
        for user in users.reversed() {
            try await store.addMember(appId: "app-a", roomId: "room-1", userId: user, at: F.t0)
        }
        try await store.addMember(appId: "app-a", roomId: "room-2", userId: "other", at: F.t0)
        try await store.addMember(appId: "app-b", roomId: "room-1", userId: "elsewhere", at: F.t0)

        var seen: [String] = []
        for offset in stride(from: 0, to: 9, by: 3) {
            seen += try await store.members(appId: "app-a", roomId: "room-1", offset: offset, limit: 3).map(\.userId)
        }
        #expect(seen == users)
        let last = try await store.members(appId: "app-a", roomId: "room-1", offset: 6, limit: 3)
        #expect(last.map(\.userId) == ["user-6"])
        #expect(try await store.members(appId: "app-a", roomId: "room-1", offset: 7, limit: 3).isEmpty)
        let all = try await store.members(appId: "app-a", roomId: "room-1", offset: 0, limit: 100)
        #expect(all.map(\.userId) == (try await store.members(appId: "app-a", roomId: "room-1")).map(\.userId))
    }
}
