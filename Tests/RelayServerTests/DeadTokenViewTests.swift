import Foundation
import RelayCore
import RelayOutbox
import RelayStore
import Testing

/// A dead token's JSON: `apnsTimestamp` is the invalid-since time only where the token's service says it
/// (APNs), null otherwise; `environment` only for a token with a scope.
@Suite struct DeadTokenViewTests {
    static let retiredAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let invalidSince = Date(timeIntervalSince1970: 1_799_999_000)
    static let hex = "ce8be6272e43e8554a5d1ed0ab0a6d2ce4b4ce1a2ed1f6ae3b9a2c6a94f1e2d3"

    static func json(_ token: PushToken) throws -> String {
        let device = Device(
            appId: "app0",
            token: token,
            userId: "alice",
            state: .retired,
            createdAt: invalidSince,
            updatedAt: invalidSince,
            retiredAt: retiredAt,
            retiredReason: "Unregistered",
            invalidSince: invalidSince
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(DeadTokenView(device)), as: UTF8.self)
    }

    @Test func anAPNsTokenShowsItsEnvironmentAndTimestamp() throws {
        let token = try PushToken(parsing: Self.hex, platform: .ios).registered(scope: "sandbox")
        #expect(
            try Self.json(token)
                == #"{"apnsTimestamp":"2027-01-15T07:43:20.000Z","environment":"sandbox","platform":"ios","#
                + #""reason":"Unregistered","retiredAt":"2027-01-15T08:00:00.000Z","token":"\#(Self.hex)","#
                + #""userId":"alice"}"#
        )
    }

    @Test func anFCMTokenShowsANullTimestampAndNoEnvironment() throws {
        let value = String(repeating: "f", count: 40)
        let token = try PushToken(parsing: value, platform: .android)
        #expect(
            try Self.json(token)
                == #"{"apnsTimestamp":null,"platform":"android","reason":"Unregistered","#
                + #""retiredAt":"2027-01-15T08:00:00.000Z","token":"\#(value)","userId":"alice"}"#
        )
    }
}
