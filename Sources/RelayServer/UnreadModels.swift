import RelayHTTP

/// `PUT /v1/rooms/{roomId}/read/{userId}` body.
struct ReadMarker: ClosedJSONBody {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case at
    }

    /// RFC 3339.
    var at: String
}

/// A member's read position as kept.
struct ReadPosition: Encodable {
    var roomId: String
    var userId: String
    /// RFC 3339, UTC.
    var readAt: String
}

/// `GET /v1/users/{userId}/unread` answer.
struct UnreadView: Encodable {
    var total: Int
    var rooms: [String: Int]
}
