import APNsCore
import APNsMock
import Foundation
import RelayAPNs
import RelayCore
import Testing

/// The header lines a client's pushes share are made into libcurl's list once and linked behind each push's
/// own lines; pushes whose shared lines differ, sent at once, each arrive with their own and nothing twice.
@Suite struct APNsSharedHeadersTests {
    /// The shared lines of push `index`: six kinds (two topics, three priorities) in turn, so the client's cached list changes while
    /// requests that use the one before are still in flight.
    static func notification(_ index: Int) -> APNsNotification {
        var notification = APNsClientMockTests.notification(
            index,
            topic: ["com.example.chat", "com.example.b"][index % 2]
        )
        notification.priority = [.immediate, .conserve, .low][index % 3]
        if index % 4 == 0 { notification.collapseId = nil }
        if index % 5 == 0 { notification.expiration = 1_900_000_000 + index }
        return notification
    }

    @Test func pushesWhoseSharedLinesDifferEachArriveWithTheirOwn() async throws {
        let mock = try APNsClientMockTests.startMock()
        defer { mock.stop() }
        let client = try APNsClientMockTests.client(mock)
        let notifications = (0..<600).map(Self.notification)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for notification in notifications { group.addTask { try await client.send(notification).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        await client.shutdown()
        #expect(statuses.count == 600 && statuses.allSatisfy { $0 == 200 })

        let byId = Dictionary(uniqueKeysWithValues: notifications.map { ($0.apnsIdHeader, $0) })
        #expect(mock.requests.count == 600)
        for request in mock.requests {
            let sent = try #require(byId[request.header("apns-id") ?? ""])
            let names = request.headers.map(\.name)
            #expect(Set(names).count == names.count, "a header sent twice: \(names)")
            #expect(request.header("apns-topic") == sent.topic)
            #expect(request.header("apns-priority") == String(sent.priority.rawValue))
            #expect(request.header("apns-collapse-id") == sent.collapseId)
            #expect(request.header("apns-expiration") == sent.expiration.map(String.init))
            #expect(request.header("authorization")?.hasPrefix("bearer ") == true)
            #expect(request.header("content-type") == "application/json")
            #expect(request.path == "/3/device/" + sent.deviceToken.hex)
        }
    }
}
