import Foundation
import RelayCore

/// A user's membership of a room: members get the room's notifications as their level for it admits.
public struct RoomMember: Sendable, Codable, Equatable, Hashable {
    /// Who made a membership. Closing a room drops the memberships its users made themselves, so that only
    /// the members the backend set receive it (``Store/setRoomMembership(appId:roomId:membership:at:)``).
    public enum Origin: String, Sendable, Codable, Hashable {
        /// The user joined itself (an open room, or `rooms` at its own registration).
        case user
        /// The app's backend (its API key) added the user, or named it again.
        case backend
    }

    public var userId: String
    /// The member's own level for the room; nil follows the user's default (``Store/userLevel(appId:userId:)``).
    public var notify: NotifyLevel?
    /// When the user first joined (millisecond precision).
    public var joinedAt: Date
    /// Who made the membership; the backend's once it named the member, whoever joined first.
    public var origin: Origin

    public init(userId: String, notify: NotifyLevel? = nil, joinedAt: Date, origin: Origin = .backend) {
        self.userId = userId
        self.notify = notify
        self.joinedAt = joinedAt
        self.origin = origin
    }
}
