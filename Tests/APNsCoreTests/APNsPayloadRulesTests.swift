import APNsCore
import Foundation
import RelayCore
import Testing

/// The APNs payloads of the shown message: its badge, the wake and removal payloads, the cut of a long
/// text, the characters that never reach the bytes, and Apple's rules on `aps` by push type and priority.
@Suite struct APNsPayloadRulesTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    static func job(badge: Int?) -> DeliveryJob {
        DeliveryJob(
            deliveryId: 7,
            appId: "chat",
            token: .apns(try! DeviceToken(parsing: String(repeating: "ab", count: 32), environment: .sandbox)),
            attempts: 0,
            deviceRegisteredAt: now,
            content: NotificationContent(
                id: UUID(),
                message: ChatMessage(roomId: "room-1", senderId: "alice", content: .text("hi"), messageId: "m-1"),
                sendAs: "com.example.chat",
                expiration: nil,
                createdAt: now
            ),
            badge: badge
        )
    }

    @Test func aJobsPayloadCarriesItsBadgeAndNoneWithout() throws {
        let badgedData = ChatPayload(shown: Self.job(badge: 4).shown).encoded()
        let badged = try JSONSerialization.jsonObject(with: badgedData) as? [String: Any]
        #expect((badged?["aps"] as? [String: Any])?["badge"] as? Int == 4)
        let plain = ChatPayload(shown: Self.job(badge: nil).shown)
        #expect(plain.aps.badge == nil && plain == Self.job(badge: nil).content.message.payload())
        #expect(!String(decoding: plain.encoded(), as: UTF8.self).contains("badge"))
        // A total of 0 is left out of an alert: it would clear the icon while announcing a message (a badge
        // update still sends 0, BadgeUpdateTests).
        let zero = ChatPayload(shown: Self.job(badge: 0).shown)
        #expect(zero.aps.badge == nil && !String(decoding: zero.encoded(), as: UTF8.self).contains("badge"))
    }

    @Test func aRemovalPayloadHasOnlyContentAvailableAndTheRemovedId() {
        let removal = ChatMessage.removal(of: "m-1", roomId: "room-1", senderId: "alice", deleteId: "d-1")
        #expect(removal.kind == .removal && removal.removedMessageId == "m-1" && removal.messageId == "d-1")
        #expect(removal.wakePayload() == nil)
        #expect(
            String(
                decoding: RemovalPayload(removedMessageId: "m-1", notificationIdentifier: "dittochat-msg-m-1")
                    .encoded(),
                as: UTF8.self
            )
                == #"{"aps":{"content-available":1},"dittoChatRemoveMessageId":"m-1","dittoChatRemoveNotificationId":"dittochat-msg-m-1"}"#
        )
    }

    /// A message's whole text (as the Ditto rule keeps it) is cut to APNs' limit, ending with "…".
    @Test func aLongTextIsCutToTheLimit() throws {
        let long = String(repeating: "é", count: 5000)
        let message = ChatMessage(
            roomId: "room-1",
            senderId: "alice",
            content: .text(long),
            messageId: "m-1",
            senderName: "Alice"
        )
        let data = try message.payload().encoded(limit: 4096)
        #expect(data.count <= 4096)
        #expect(message.payload().aps.alert?.body == "Alice: " + long)
        #expect(String(decoding: data, as: UTF8.self).contains("…"))
    }

    /// An image message lets the app's extension run, even when its URL is left out.
    @Test func anImageMessageIsMutableWithoutAnURL() {
        let stored = ChatMessage(roomId: "r", senderId: "s", content: .image(caption: nil, imageURL: "https://127.1/x"))
        #expect(stored.payload().imageUrl == nil)
        #expect(stored.payload().aps.mutableContent == 1)
    }

    /// The encoded payload carries none of the dropped characters, whichever way JSON would write them.
    @Test func theEncodedPayloadHasNoOverride() throws {
        let message = ChatMessage(
            roomId: "r",
            senderId: "s",
            content: .text("hi\u{202E}\u{1}"),
            roomName: "Room\u{2067}",
            senderName: "Eve\u{202E}"
        )
        let json = String(decoding: try message.payload().encoded(limit: 4096), as: UTF8.self)
        for dropped in ["\u{202E}", "\u{2067}", "\\u202e", "\\u2067", "\\u0001", "\u{1}"] {
            #expect(!json.lowercased().contains(dropped))
        }
        #expect(json.contains("\"body\":\"Eve: hi\""))
    }

    @Test func aWakePayloadHasOnlyContentAvailableAndTheKeys() throws {
        let message = ChatMessage(
            roomId: "general",
            senderId: "alice",
            content: .text("hi"),
            messageId: "m-1",
            roomName: "General",
            senderName: "Alice"
        )
        let payload = try #require(message.wakePayload())
        #expect(
            String(decoding: payload.encoded(), as: UTF8.self)
                == #"{"aps":{"content-available":1},"dittoChatMessageId":"m-1","dittoChatRoomId":"general"}"#
        )
        var withoutId = message
        withoutId.messageId = nil
        #expect(withoutId.wakePayload() == nil)
    }

    /// Apple's rules the mock applies to a payload's `aps` (``PushType/payloadRefusal(priority:aps:)``).
    @Test func applesPayloadRulesForBackgroundAndPriority10() {
        let wake: [String: Any] = ["content-available": 1]
        #expect(PushType.background.payloadRefusal(priority: .conserve, aps: wake) == nil)
        #expect(PushType.alert.payloadRefusal(priority: .immediate, aps: wake) == .badPriority)
        #expect(PushType.alert.payloadRefusal(priority: .conserve, aps: ["badge": 3]) == nil)
        for key in PushType.userVisibleKeys {
            var aps = wake
            aps[key] = key == "badge" ? 1 : "x"
            #expect(PushType.background.payloadRefusal(priority: .conserve, aps: aps) == .invalidPushType, "\(key)")
            #expect(PushType.alert.payloadRefusal(priority: .immediate, aps: aps) == nil, "\(key)")
        }
        #expect(PushType.alert.payloadRefusal(priority: .immediate, aps: nil) == nil)
    }

    /// The neutral names RelayCore keeps are APNs' own: the notification identifier fits apns-collapse-id,
    /// and an unlinked topic fails with APNs' reason.
    @Test func relayCoresNeutralNamesAreAPNsOwn() {
        #expect(ChatMessage.notificationIdentifierMaxBytes == APNsLimits.collapseIdMaxBytes)
        #expect(PushResult.unlinkedReason == APNsReason.deviceTokenNotForTopic.description)
    }
}
