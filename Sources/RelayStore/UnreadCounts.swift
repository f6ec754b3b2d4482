/// A user's unread messages: its total over every room it has a read position in, and the rooms with
/// unread messages (most first, at most the limit asked for).
public struct UnreadCounts: Sendable, Equatable {
    public var total: Int
    /// Unread messages by room id; only rooms with at least one.
    public var rooms: [String: Int]

    public init(total: Int = 0, rooms: [String: Int] = [:]) {
        self.total = total
        self.rooms = rooms
    }
}
