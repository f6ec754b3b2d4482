import FCMCore
import Foundation
import RelayCore
import Testing

@Suite struct FCMMessageTests {
    static let token = try! FCMRegistrationToken(
        parsing: "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_LkdZmN0pV7yT3sRqWbE9cJhGfAiOuK2lX8vY6nD5tC1zB4aS"
    )

    static func message(
        _ content: ChatMessage.Content = .text("See you at 5/6?"),
        messageId: String? = "msg-42",
        roomName: String? = "Team",
        senderName: String? = "Alice",
        privacy: Bool = false
    ) -> FCMMessage {
        let chat = ChatMessage(
            roomId: "room-7",
            senderId: "u1",
            content: content,
            messageId: messageId,
            roomName: roomName,
            senderName: senderName
        )
        return FCMMessage(token: token, shown: (privacy ? chat.withoutTexts : chat).shown, ttlSeconds: 86_400)
    }

    static func object(_ data: Data) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try #require(json?["message"] as? [String: Any])
    }

    @Test func aTextMessageIsExactlyThisJSON() throws {
        let body = String(decoding: try Self.message().encoded(), as: UTF8.self)
        let expected =
            #"{"message":{"android":{"notification":{"tag":"dittochat-msg-msg-42"},"priority":"HIGH","#
            + #""ttl":"86400s"},"#
            + #""data":{"dittoChatMessageId":"msg-42","dittoChatRoomId":"room-7"},"#
            + #""notification":{"body":"Alice: See you at 5/6?","title":"Team"},"token":"\#(Self.token.value)"}}"#
        #expect(body == expected)
    }

    @Test func aBadgeUpdateIsADataMessageAtNormalPriorityWithOnlyTheCount() throws {
        let body = String(
            decoding: try FCMMessage(token: Self.token, unread: 7, ttlSeconds: 86_400).encoded(),
            as: UTF8.self
        )
        #expect(
            body
                == #"{"message":{"android":{"priority":"NORMAL","ttl":"86400s"},"data":{"dittoChatUnread":"7"},"#
                + #""token":"\#(Self.token.value)"}}"#
        )
    }

    @Test func anImageMessageCarriesItsURLInDataAsAString() throws {
        let message = Self.message(.image(caption: nil, imageURL: "https://cdn.example.com/a/b.jpg"))
        let object = try Self.object(try message.encoded())
        let data = try #require(object["data"] as? [String: String])
        #expect(data["imageUrl"] == "https://cdn.example.com/a/b.jpg")
        let notification = try #require(object["notification"] as? [String: String])
        #expect(notification["body"] == "Alice: " + ShownMessage.imageBody)
    }

    @Test func privacyHidesTextTitleAndImage() throws {
        let message = Self.message(.image(caption: "secret", imageURL: "https://cdn.example.com/x.jpg"), privacy: true)
        let text = String(decoding: try message.encoded(), as: UTF8.self)
        #expect(!text.contains("secret") && !text.contains("cdn.example.com") && !text.contains("Team"))
        #expect(text.contains(#""body":"New message""#))
    }

    @Test func withoutAMessageIdThereIsNoTagAndNoIdKey() throws {
        let object = try Self.object(try Self.message(messageId: nil).encoded())
        let android = try #require(object["android"] as? [String: Any])
        #expect(android["notification"] == nil)
        #expect((object["data"] as? [String: String])?["dittoChatMessageId"] == nil)
    }

    @Test func aLongTextIsCutToFCMsLimitKeepingTheKeys() throws {
        let long = String(repeating: "ü😀x", count: 2000)
        let data = try Self.message(.text(long)).encoded()
        #expect(data.count <= FCMLimits.maxMessageBytes)
        #expect(data.count > FCMLimits.maxMessageBytes - 8)
        let object = try Self.object(data)
        let notification = try #require(object["notification"] as? [String: String])
        #expect(notification["title"] == "Team")
        #expect(notification["body"]?.hasSuffix(TextFitting.ellipsis) == true)
        #expect(notification["body"]?.hasPrefix("Alice: ü😀x") == true)
        #expect((object["data"] as? [String: String])?["dittoChatRoomId"] == "room-7")
    }

    @Test func idsTooLongForAnyTextAreRefused() {
        let error = #expect(throws: FCMMessageError.self) {
            try Self.message(messageId: String(repeating: "m", count: 5000)).encoded()
        }
        #expect(error?.code == .tooLarge)
    }

    @Test func reservedDataKeysAndTTLsOutOfRangeAreRefused() {
        for key in ["from", "notification", "message_type", "google.sent_time", "gcm.notification.body"] {
            var message = Self.message()
            message.data[key] = "x"
            let error = #expect(throws: FCMMessageError.self) { try message.encoded() }
            #expect(error?.code == .reservedDataKey)
        }
        for ttl in [-1, FCMLimits.maxTTLSeconds + 1] {
            var message = Self.message()
            message.ttlSeconds = ttl
            let error = #expect(throws: FCMMessageError.self) { try message.encoded() }
            #expect(error?.code == .invalidTTL)
        }
        var zero = Self.message()
        zero.ttlSeconds = 0
        #expect(String(decoding: (try? zero.encoded()) ?? Data(), as: UTF8.self).contains(#""ttl":"0s""#))
    }

    @Test func aBadgeBecomesTheUnreadDataKeyAsAString() throws {
        var shown = ChatMessage(roomId: "room-7", senderId: "u1", content: .text("hi"), messageId: "msg-42").shown
        shown.badge = 12
        let message = FCMMessage(token: Self.token, shown: shown, ttlSeconds: 60)
        #expect(message.data["dittoChatUnread"] == "12")
        let data = try #require(try Self.object(try message.encoded())["data"] as? [String: String])
        #expect(data == ["dittoChatRoomId": "room-7", "dittoChatMessageId": "msg-42", "dittoChatUnread": "12"])
        #expect(Self.message().data["dittoChatUnread"] == nil)
    }
}
