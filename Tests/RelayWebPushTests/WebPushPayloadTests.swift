import Foundation
import RelayCore
import Testing
import WebPushCore

/// What a browser receives: the service worker's JSON and the declarative shape, cut to one record.
@Suite struct WebPushPayloadTests {
    static func chat(
        _ text: String = "hi",
        roomName: String? = "Team",
        messageId: String? = "m-1",
        privacy: Bool = false
    ) -> ShownMessage {
        let message = ChatMessage(
            roomId: "room 7/ä",
            senderId: "u1",
            content: .text(text),
            messageId: messageId,
            roomName: roomName,
            senderName: "Alice"
        )
        return (privacy ? message.withoutTexts : message).shown
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func thePlainShapeHasTheTextsAndIds() throws {
        let payload = WebPushPayload(shown: Self.chat("See you at 5/6? 😀"), openURL: nil)
        #expect(
            Self.text(try payload.encoded())
                == #"{"body":"Alice: See you at 5/6? 😀","dittoChatMessageId":"m-1","dittoChatRoomId":"room 7/ä","#
                + #""title":"Team"}"#
        )
        let withoutId = WebPushPayload(shown: Self.chat(messageId: nil), openURL: nil)
        #expect(
            Self.text(try withoutId.encoded()) == #"{"body":"Alice: hi","dittoChatRoomId":"room 7/ä","title":"Team"}"#
        )
    }

    @Test func theDeclarativeShapeNavigatesToTheFilledOpenURL() throws {
        let payload = WebPushPayload(shown: Self.chat(), openURL: "https://chat.example/r/{roomId}?m={messageId}")
        #expect(
            Self.text(try payload.encoded())
                == #"{"notification":{"body":"Alice: hi","data":{"dittoChatMessageId":"m-1","#
                + #""dittoChatRoomId":"room 7/ä"},"navigate":"https://chat.example/r/room%207%2F%C3%A4?m=m-1","#
                + #""tag":"dittochat-msg-m-1","title":"Team"},"web_push":8030}"#
        )
        let withoutId = WebPushPayload(
            shown: Self.chat(messageId: nil),
            openURL: "https://chat.example/{roomId}#{messageId}"
        )
        #expect(withoutId.navigate == "https://chat.example/room%207%2F%C3%A4#")
        #expect(!Self.text(try withoutId.encoded()).contains("tag"))
    }

    @Test func withoutARoomNameTheTextIsTheTitle() throws {
        let plain = WebPushPayload(shown: Self.chat(roomName: nil), openURL: nil)
        #expect(
            Self.text(try plain.encoded())
                == #"{"body":"","dittoChatMessageId":"m-1","dittoChatRoomId":"room 7/ä","title":"Alice: hi"}"#
        )
        let declarative = WebPushPayload(shown: Self.chat(roomName: nil), openURL: "https://chat.example/")
        let notification =
            try #require(
                try JSONSerialization.jsonObject(with: try declarative.encoded()) as? [String: Any]
            )["notification"] as? [String: Any]
        #expect(notification?["title"] as? String == "Alice: hi")
        #expect(notification?["body"] == nil)
    }

    @Test func privacyModeShowsNoText() throws {
        let payload = WebPushPayload(shown: Self.chat("secret plans", privacy: true), openURL: nil)
        let text = Self.text(try payload.encoded())
        #expect(!text.contains("secret") && !text.contains("Team") && !text.contains("Alice"))
        #expect(text.contains(#""title":"New message""#))
    }

    @Test(arguments: [false, true])
    func aLongBodyIsCutToOneRecord(declarative: Bool) throws {
        let long = String(repeating: "😀 word ", count: 2000)
        let payload = WebPushPayload(
            shown: Self.chat(long),
            openURL: declarative ? "https://chat.example/{roomId}" : nil
        )
        let data = try payload.encoded()
        #expect(data.count <= MessageEncryption.maxPlaintextSize)
        #expect(data.count > MessageEncryption.maxPlaintextSize - 16)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let shown = declarative ? object["notification"] as? [String: Any] : object
        let body = try #require(shown?["body"] as? String)
        #expect(body.hasPrefix("Alice: 😀 word"))
        #expect(body.hasSuffix("…"))
        #expect(shown?["title"] as? String == "Team")
    }

    @Test func idsThatCannotFitAreRefused() {
        let huge = String(repeating: "x", count: 5000)
        let payload = WebPushPayload(title: "t", body: "b", roomId: huge, messageId: nil, navigate: nil)
        #expect(throws: WebPushError.self) { try payload.encoded() }
    }
}
