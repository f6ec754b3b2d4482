import Foundation
import RelayCore
import Testing

@Suite struct DittoCollectionsTests {
    @Test func theDefaultsAreTheSDKsNames() {
        let names = DittoCollections()
        #expect(names.kind(of: "rooms") == .rooms)
        #expect(names.kind(of: "dm_rooms") == .dmRooms)
        #expect(names.kind(of: "messages") == .messages)
        #expect(names.kind(of: "dm_messages") == .dmMessages)
        #expect(names.kind(of: "users") == .users)
        #expect(names.kind(of: "Users") == nil)
        #expect(names.kind(of: "attachments") == nil)
    }

    @Test func aRoomsMessagesIdIsAMessageCollection() {
        let names = DittoCollections()
        #expect(names.kind(of: "team_messages", roomMessageCollections: ["team_messages"]) == .messages)
        #expect(names.kind(of: "dm_messages", roomMessageCollections: ["dm_messages"]) == .dmMessages)
        #expect(names.kind(of: "caf\u{E9}", roomMessageCollections: ["cafe\u{301}"]) == nil, "names compare as bytes")
    }

    @Test func configuredNamesReplaceTheDefaults() throws {
        let json = #"{"users": "chat_users", "messages": "chat_messages"}"#
        let names = try JSONDecoder().decode(DittoCollections.self, from: Data(json.utf8))
        #expect(names == DittoCollections(messages: "chat_messages", users: "chat_users"))
        #expect(names.kind(of: "chat_users") == .users)
        #expect(names.kind(of: "users") == nil)
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(DittoCollections.self, from: Data(#"{"user": "x"}"#.utf8))
        }
    }
}
