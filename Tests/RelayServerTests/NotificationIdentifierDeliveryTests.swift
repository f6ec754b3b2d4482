import APNsMock
import FCMMock
import Foundation
import Testing

/// A message's notification identifier as the services receive it: the mock APNs's `apns-collapse-id` and
/// the mock FCM's `android.notification.tag` are the DittoChat SDK's banner identifier,
/// `dittochat-msg-<messageId>`, byte for byte, or the SHA-256 form for an id APNs cannot carry so.
@Suite struct NotificationIdentifierDeliveryTests {
    /// The identifier sent for each `messageId`, on both platforms, compared as bytes.
    @Test func bothServicesGetTheSameIdentifierForAMessage() async throws {
        let uuid = UUID().uuidString
        let cases: [(messageId: String, identifier: String, image: Bool)] = [
            // A Swift UUID: upper case, 50 bytes with the prefix.
            (uuid, "dittochat-msg-" + uuid, false),
            // Decomposed é and an emoji: the bytes travel as given, not normalized.
            ("jose\u{301}-😀", "dittochat-msg-jose\u{301}-😀", true),
            // 52 bytes: `dittochat-msg-` + id is past APNs' 64.
            (
                String(repeating: "é", count: 26),
                "dittochat-sha256-6f67d39a7b557270ff4232989c9dfd9bdbc89915ea8bd0a", false
            ),
            // A space at the end: an HTTP/2 header value cannot end with one.
            ("abc ", "dittochat-sha256-5488613c42b0d34d60f7aa9e94be317a3ee102a2bbd91cc", false),
        ]
        try await withRelayAndMock { relay in
            let phone = randomToken()
            let pixel = PlatformDeliveryTests.fcmToken(7)
            try await relay.register(phone, user: "bob", rooms: ["general"])
            try await relay.register(pixel, user: "bob", rooms: ["general"], platform: "android")
            for (index, entry) in cases.enumerated() {
                var body: [String: Any] = ["roomId": "general", "senderId": "alice", "messageId": entry.messageId]
                body[entry.image ? "caption" : "text"] = "hello \(index)"
                let answer = try await relay.webhook(body, image: entry.image)
                #expect(answer.devices == 2)
                let view = try await relay.settled(answer.notificationId)
                #expect(view.counts.sent == 2, "\(entry.messageId)")

                let apns = relay.requests(to: phone)
                try #require(apns.count == index + 1)
                let collapseId = try #require(apns[index].header("apns-collapse-id"))
                #expect(Array(collapseId.utf8) == Array(entry.identifier.utf8), "\(collapseId)")
                #expect(collapseId.utf8.count <= 64 && apns[index].status == 200)

                let fcm = try await relay.fcm.waitForRequests(count: index + 1)
                let sent = try #require(
                    try JSONSerialization.jsonObject(with: Data(fcm[index].body.utf8)) as? [String: Any]
                )
                let message = try #require(sent["message"] as? [String: Any])
                let android = try #require(message["android"] as? [String: Any])
                let tag = try #require((android["notification"] as? [String: String])?["tag"])
                #expect(Array(tag.utf8) == Array(entry.identifier.utf8), "\(tag)")
                let data = try #require(message["data"] as? [String: String])
                #expect(data["dittoChatMessageId"].map { Array($0.utf8) } == Array(entry.messageId.utf8))
            }
        }
    }
}
