import Foundation
import RelayCore
import Testing

@testable import RelayServer

/// The retention job through the real relay: a finished notification is readable until
/// `storage.retentionHours` have passed, then deleted, and `GET /v1/notifications/{id}` answers 404.
@Suite struct RetentionTests {
    struct ErrorBody: Decodable {
        struct Detail: Decodable { var code: String }
        var error: Detail
    }

    /// The `error.code` of an error answer.
    static func errorCode(_ response: APIResponse) throws -> String { try response.decode(ErrorBody.self).error.code }

    @Test func aFinishedNotificationIsDeletedAfterTheRetentionAndThenUnknown() async throws {
        let time = ManualTimeSource(now: Date())
        try await withRelayAndMock(time: time, configure: { $0.storage.retentionHours = 24 }) { harness in
            let token = randomToken()
            try await harness.register(token, user: "bob", rooms: ["room-1"])
            let answer = try await harness.webhook(["roomId": "room-1", "senderId": "alice", "text": "hi"])
            #expect(try await harness.settled(answer.notificationId).counts.sent == 1)
            let relay = try harness.relay
            let job = RetentionJob(
                store: relay.store,
                retention: .seconds(24 * 3600),
                owner: "test",
                time: time,
                logger: .disabled()
            )
            time.advance(by: .seconds(23 * 3600))
            // The relay's own job may have taken this run: either way nothing is old enough yet.
            #expect(try await job.runIfDue() ?? 0 == 0)
            #expect(try await harness.call("GET", "/v1/notifications/\(answer.notificationId)").status == 200)
            time.advance(by: .seconds(3601))
            let deleted = try await job.runIfDue()
            #expect(deleted == 1 || deleted == nil)
            let gone = try await harness.call("GET", "/v1/notifications/\(answer.notificationId)")
            let unknown = try await harness.call("GET", "/v1/notifications/\(UUID().uuidString.lowercased())")
            #expect(gone.status == 404 && unknown.status == 404)
            #expect(try Self.errorCode(gone) == Self.errorCode(unknown))
        }
    }
}
