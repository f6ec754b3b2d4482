import Foundation

/// A user's membership of a room: members get the room's notifications unless muted.
public struct RoomMember: Sendable, Codable, Equatable, Hashable {
    public var userId: String
    /// A muted member gets no notifications for the room (unless named as an explicit recipient).
    public var muted: Bool
    /// When the user first joined (millisecond precision).
    public var joinedAt: Date

    public init(userId: String, muted: Bool = false, joinedAt: Date) {
        self.userId = userId
        self.muted = muted
        self.joinedAt = joinedAt
    }
}
