import APNsMock
import Foundation
import RelayTestSupport
import Testing

/// The webhook and registration bodies in fixtures/ (shaped like what a host app sends from the Ditto chat
/// delegate) go through the real relay and reach the mock APNs as valid payloads within 4096 bytes.
@Suite struct FixtureWebhookTests {
    static func files(_ folder: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(
            at: fixturesDirectory.appendingPathComponent(folder),
            includingPropertiesForKeys: nil
        )
        .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func object(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func fixtureWebhooksBecomeValidPayloads() async throws {
        try await withRelayAndMock { relay in
            var tokens: [String: String] = [:]
            for file in try Self.files("registrations") {
                let body = try Self.object(file)
                let response = try await relay.call("POST", "/v1/devices", json: body)
                #expect(response.status == 201, "\(file.lastPathComponent): \(response.text)")
                let device = try response.decode(DeviceJSON.self)
                #expect(device.token.utf8.count == 64 && device.token == device.token.lowercased())
                #expect(device.token.allSatisfy { $0.isHexDigit })
                tokens[device.userId] = device.token
            }
            let recipients: Set = [try #require(tokens["alice"]), try #require(tokens["bob"])]
            let sender = try #require(tokens["carol"])

            let webhooks = try Self.files("webhooks")
            #expect(webhooks.count >= 6)
            for file in webhooks {
                let body = try Self.object(file)
                let image = file.lastPathComponent.hasPrefix("image-")
                let answer = try await relay.webhook(body, image: image)
                #expect(answer.devices == 2, "\(file.lastPathComponent)")
                let view = try await relay.settled(answer.notificationId)
                #expect(view.counts.sent == 2, "\(file.lastPathComponent)")

                let messageId = try #require(body["messageId"] as? String)
                let requests = relay.mock.requests.filter {
                    (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["dittoChatMessageId"]
                        as? String == messageId
                }
                #expect(requests.count == 2 && Set(requests.compactMap(\.deviceToken)) == recipients)
                for request in requests {
                    #expect(request.body.count <= 4096, "\(file.lastPathComponent)")
                    let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                    let aps = try #require(payload["aps"] as? [String: Any])
                    let alert = try #require(aps["alert"] as? [String: Any])
                    let shown = try #require(alert["body"] as? String)
                    #expect(alert["title"] as? String == body["roomName"] as? String)
                    #expect(payload["dittoChatRoomId"] as? String == body["roomId"] as? String)
                    if image {
                        #expect(aps["mutable-content"] as? Int == 1)
                        let caption = body["caption"] as? String
                        #expect(shown == "Carol: " + (caption ?? "📷 Image"), "\(file.lastPathComponent)")
                    } else {
                        let text = try #require(body["text"] as? String)
                        if Data(text.utf8).count > 4000 {
                            #expect(shown.hasSuffix("…"))
                            #expect(("Carol: " + text).hasPrefix(String(shown.dropLast())))
                            #expect(request.body.count > 3500, "the cut text should fill the payload")
                        } else {
                            #expect(shown == "Carol: " + text, "\(file.lastPathComponent)")
                        }
                    }
                }
            }
            #expect(relay.requests(to: sender).isEmpty)
        }
    }
}
