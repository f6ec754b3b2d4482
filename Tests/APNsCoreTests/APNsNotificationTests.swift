import APNsCore
import Foundation
import RelayCore
import Testing

@Suite struct APNsNotificationTests {
    static let token = try! DeviceToken(parsing: String(repeating: "ab", count: 32))

    static func notification(_ edit: (inout APNsNotification) -> Void = { _ in }) -> APNsNotification {
        var n = APNsNotification(deviceToken: token, topic: "com.example.chat", payload: Data(#"{"aps":{}}"#.utf8))
        edit(&n)
        return n
    }

    @Test func aWellFormedNotificationPasses() throws {
        try Self.notification().validate()
    }

    @Test(arguments: [
        (Self.notification { $0.topic = "" }, APNsReason.missingTopic),
        (Self.notification { $0.payload = Data() }, .payloadEmpty),
        (Self.notification { $0.payload = Data("[1]".utf8) }, .payloadEmpty),
        (Self.notification { $0.payload = Data(repeating: 0x20, count: 4097) }, .payloadTooLarge),
        (Self.notification { $0.collapseId = String(repeating: "é", count: 33) }, .badCollapseId),
        (Self.notification { $0.pushType = .background }, .badPriority),
        (Self.notification { $0.pushType = .voip }, .badTopic),
        (Self.notification { $0.expiration = -1 }, .badExpirationDate),
    ])
    func localRefusals(notification: APNsNotification, reason: APNsReason) {
        #expect(throws: NotificationError.self) { try notification.validate() }
        #expect((try? notification.validate()) == nil)
        do { try notification.validate() } catch { #expect(error.reason == reason) }
    }

    @Test func voipAllowsLargerPayloads() throws {
        let payload = Data(("{\"a\":\"" + String(repeating: "x", count: 5000) + "\"}").utf8)
        try Self.notification {
            $0.pushType = .voip
            $0.topic = "com.example.chat.voip"
            $0.payload = payload
        }.validate()
    }

    @Test func reasonsRoundTripAndUnknownIsKept() {
        for (reason, _) in APNsReason.documented { #expect(APNsReason(reason.description) == reason) }
        #expect(APNsReason("SomethingNew") == .unknown("SomethingNew"))
    }

    @Test func errorBodyTimestampIsMilliseconds() {
        let body = Data(#"{"reason":"Unregistered","timestamp":1767225600123}"#.utf8)
        let response = APNsResponse(status: 410, apnsId: nil, apnsUniqueId: nil, body: body)
        #expect(response.reason == .unregistered)
        let year = Calendar(identifier: .gregorian).dateComponents(
            in: TimeZone(identifier: "UTC")!,
            from: response.timestamp!
        ).year
        #expect(year == 2026)
    }
}
