import APNsCore
import Foundation
import RelayCore
import Testing

@Suite struct ChatPayloadTests {
    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func textMessageCarriesTheDittoKeysAndAlert() throws {
        let message = ChatMessage(
            roomId: "room/1",
            senderId: "alice",
            content: .text("héllo 👋"),
            messageId: "m-1",
            roomName: "Team",
            senderName: "Alice"
        )
        let data = try message.payload().encoded(limit: 4096)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("room/1"), "no \\/ escaping")
        #expect(text.contains("héllo 👋"), "raw UTF-8, no \\u escapes")
        let object = try Self.json(data)
        #expect(object["dittoChatRoomId"] as? String == "room/1")
        #expect(object["dittoChatMessageId"] as? String == "m-1")
        let aps = try #require(object["aps"] as? [String: Any])
        #expect(aps["thread-id"] as? String == "room/1")
        #expect(aps["sound"] as? String == "default")
        #expect(aps["mutable-content"] == nil)
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Team")
        #expect(alert["body"] as? String == "Alice: héllo 👋")
    }

    @Test func imageWithoutCaptionUsesTheSDKBody() throws {
        let message = ChatMessage(roomId: "r", senderId: "a", content: .image(caption: nil, imageURL: nil))
        let object = try Self.json(try message.payload().encoded(limit: 4096))
        let aps = try #require(object["aps"] as? [String: Any])
        #expect(aps["mutable-content"] as? Int == 1)
        #expect((aps["alert"] as? [String: Any])?["body"] as? String == "📷 Image")
        #expect(object["dittoChatMessageId"] == nil)
        #expect(object["imageUrl"] == nil)
    }

    /// The image's URL goes top-level, for the app's notification service extension; never in privacy mode.
    @Test func anImageURLIsCarriedForTheServiceExtension() throws {
        let url = "https://example.com/images/1.jpg"
        let message = ChatMessage(roomId: "r", senderId: "a", content: .image(caption: "hi", imageURL: url))
        let object = try Self.json(try message.payload().encoded(limit: 4096))
        #expect(object["imageUrl"] as? String == url)
        #expect((object["aps"] as? [String: Any])?["mutable-content"] as? Int == 1)
        let hidden = try Self.json(try message.withoutTexts.payload().encoded(limit: 4096))
        #expect(hidden["imageUrl"] == nil)
    }

    /// A caption, sender name or room name with nothing visible in it counts as absent.
    @Test(arguments: ["", " \n\t", "\u{200B}", "\u{0}", "\u{00A0}\u{2060}"])
    func blankCaptionAndNamesCountAsAbsent(blank: String) throws {
        #expect(blank.isBlank)
        let message = ChatMessage(
            roomId: "r",
            senderId: "a",
            content: .image(caption: blank, imageURL: nil),
            roomName: blank,
            senderName: blank
        )
        let object = try Self.json(try message.payload().encoded(limit: 4096))
        let alert = try #require((object["aps"] as? [String: Any])?["alert"] as? [String: Any])
        #expect(alert["body"] as? String == "📷 Image")
        #expect(alert["title"] == nil)
    }

    @Test(arguments: ["a", " a ", "👋", "👨‍👩‍👧", "\u{200B}x", "é"])
    func textWithAVisibleCharacterIsNotBlank(text: String) {
        #expect(!text.isBlank)
    }

    @Test(arguments: ["a", "😀", "é", "\"", "\n", "👩‍👩‍👧‍👦"])
    func longTextIsCutOnACharacterBoundaryWithinTheLimit(unit: String) throws {
        let text = String(repeating: unit, count: 5000)
        let message = ChatMessage(roomId: "r", senderId: "a", content: .text(text), messageId: "m")
        let data = try message.payload().encoded(limit: 4096)
        #expect(data.count <= 4096)
        #expect(data.count > 4096 - 64, "cut no more than needed")
        let body = try #require(((try Self.json(data))["aps"] as? [String: Any])?["alert"] as? [String: Any])["body"]
        let cut = try #require(body as? String)
        #expect(cut.hasSuffix("…"))
        #expect(text.hasPrefix(String(cut.dropLast())))
    }

    /// Names are labels: however long, or however many bytes their Characters take (a letter with dozens of
    /// combining marks is one Character), they never crowd the message's text out of the payload.
    @Test(arguments: [
        String(repeating: "Team ", count: 400),
        String(repeating: "a" + String(repeating: "\u{0301}", count: 30), count: 100),
        "a" + String(repeating: "\u{0301}", count: 3000),
    ])
    func longNamesAreCutAndTheTextStays(name: String) throws {
        let message = ChatMessage(
            roomId: "r",
            senderId: "s",
            content: .text("Meet at 5pm"),
            roomName: name,
            senderName: name
        )
        let payload = message.payload()
        let title = try #require(payload.aps.alert?.title), body = try #require(payload.aps.alert?.body)
        #expect(title.utf8.count <= ChatMessage.maxShownNameBytes && title.count <= ChatMessage.maxShownNameCharacters)
        #expect(title.hasSuffix(TextFitting.ellipsis) && body.hasSuffix(": Meet at 5pm"))
        let alert = try Self.json(try payload.encoded(limit: 4096))["aps"] as? [String: Any]
        #expect(((alert?["alert"] as? [String: Any])?["body"] as? String)?.hasSuffix("Meet at 5pm") == true)
    }

    @Test func idsTooLongForAnyPayloadAreRefused() {
        let message = ChatMessage(roomId: String(repeating: "r", count: 5000), senderId: "a", content: .text("x"))
        #expect(throws: ChatPayload.TooLarge.self) { try message.payload().encoded(limit: 4096) }
    }

    @Test func privacyModeSendsNoText() throws {
        let message = ChatMessage(roomId: "r", senderId: "a", content: .text("secret"), roomName: "Room")
        let text = String(decoding: try message.withoutTexts.payload().encoded(limit: 4096), as: UTF8.self)
        #expect(!text.contains("secret"))
        #expect(text.contains("New message"))
        #expect(text.contains("dittoChatRoomId"))
    }
}
