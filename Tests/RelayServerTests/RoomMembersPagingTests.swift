import Foundation
import Testing

/// `GET /v1/rooms/{roomId}/members?offset&limit`: pages by user id with `nextOffset` while more follow.
@Suite struct RoomMembersPagingTests {
    struct Page: Decodable {
        var members: [String]
        var nextOffset: Int?
    }

    @Test func pagesCarryNextOffsetUntilTheLast() async throws {
        try await withRelayAndMock { relay in
            let users = (0..<5).map { "user-\($0)" }
            for user in users { try await relay.join("general", user) }

            let first = try await relay.call("GET", "/v1/rooms/general/members?limit=2").decode(Page.self)
            #expect(first.members == ["user-0", "user-1"] && first.nextOffset == 2)
            let second = try await relay.call("GET", "/v1/rooms/general/members?offset=2&limit=2").decode(Page.self)
            #expect(second.members == ["user-2", "user-3"] && second.nextOffset == 4)
            let last = try await relay.call("GET", "/v1/rooms/general/members?offset=4&limit=2").decode(Page.self)
            #expect(last.members == ["user-4"] && last.nextOffset == nil)
            let exact = try await relay.call("GET", "/v1/rooms/general/members?limit=5")
            #expect(exact.text == #"{"members":["user-0","user-1","user-2","user-3","user-4"]}"#)
            let whole = try await relay.call("GET", "/v1/rooms/general/members").decode(Page.self)
            #expect(whole.members == users && whole.nextOffset == nil)

            for query in ["limit=0", "limit=10001", "offset=-1", "limit=x"] {
                let bad = try await relay.call("GET", "/v1/rooms/general/members?\(query)")
                #expect(bad.status == 400 && bad.error?.code == "invalid_query", "\(query): \(bad.text)")
            }
            #expect(try await relay.call("GET", "/v1/rooms/general/members?limit=10000").status == 200)
        }
    }
}
