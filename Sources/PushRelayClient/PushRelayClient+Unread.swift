import Foundation

extension PushRelayClient {
    /// Marks the user's messages in a room read up to `at` (`PUT /v1/rooms/{roomId}/read/{userId}` with
    /// `{"at": "<RFC 3339>"}`), so its unread count drops and, for an app with badges, its other devices'
    /// badges follow. A read position only moves forward; a date after the relay's clock counts as its now.
    ///
    /// - Parameters:
    ///   - userId: whose position; nil (the default) is the signed-in user, the only one a user credential
    ///     may mark.
    ///   - at: read up to when; default now.
    /// - Returns: the position the relay keeps (never earlier than before).
    /// - Throws: ``PushRelayError``: `member_not_found` when the user is not in the room, `managed_by_ditto`
    ///   for an app whose read positions come from its Ditto stream.
    @discardableResult
    public func markRead(roomId: String, userId: String? = nil, at: Date = Date()) async throws -> Date {
        let user = userId ?? self.userId
        let answer = try await transport.send(
            try RelayCall(
                method: "PUT",
                path: ["v1", "rooms", roomId, "read", user],
                json: ReadMarkerBody(at: RelayDate.text(at))
            )
        )
        let position = try answer.decode(ReadPositionBody.self)
        guard let readAt = RelayDate.parse(position.readAt) else {
            throw PushRelayError(code: .unexpectedResponse, message: "readAt is no RFC 3339 date")
        }
        return readAt
    }

    /// The user's unread messages (`GET /v1/users/{userId}/unread`): the total over its rooms and the rooms
    /// with unread messages (the 1,000 most unread).
    ///
    /// - Parameter userId: whose; nil (the default) is the signed-in user, the only one a user credential
    ///   may read.
    /// - Throws: ``PushRelayError``.
    public func unread(userId: String? = nil) async throws -> UnreadCounts {
        let answer = try await transport.send(
            RelayCall(method: "GET", path: ["v1", "users", userId ?? self.userId, "unread"])
        )
        return try answer.decode(UnreadCounts.self)
    }
}

/// A user's unread messages as the relay counts them: messages from others in its rooms after its read
/// position there.
public struct UnreadCounts: Decodable, Sendable, Equatable {
    /// Unread messages over all the user's rooms.
    public var total: Int
    /// Unread messages by room id; only rooms with at least one.
    public var rooms: [String: Int]

    public init(total: Int, rooms: [String: Int]) {
        self.total = total
        self.rooms = rooms
    }
}

/// RFC 3339 dates as the relay reads and writes them (UTC, milliseconds).
enum RelayDate {
    static func text(_ date: Date) -> String { formatter(fractional: true).string(from: date) }

    /// The date of an RFC 3339 text, with or without fractional seconds; nil when it is none.
    static func parse(_ text: String) -> Date? {
        formatter(fractional: true).date(from: text) ?? formatter(fractional: false).date(from: text)
    }

    /// A new formatter per use: `ISO8601DateFormatter` is not `Sendable`.
    private static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions =
            fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }
}
