/// The names of a DittoChat app's collections, as `apps[].ditto.collections` sets them; each defaults to the
/// SDK's name. Names compare as bytes of UTF-8, as Ditto has them.
public struct DittoCollections: Codable, Sendable, Equatable {
    /// What a collection holds, as far as the relay is concerned.
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// Public rooms.
        case rooms
        /// DM rooms (`participants`).
        case dmRooms
        /// Messages of public rooms: the configured collection, or one a room's `messagesId` names.
        case messages
        /// Messages of DM rooms.
        case dmMessages
        /// The app's users (`subscriptions`, `mentions`), the collection the app gives `setUsersCollection`.
        case users
    }

    /// Public rooms. Default `rooms`.
    public var rooms: String
    /// DM rooms. Default `dm_rooms`.
    public var dmRooms: String
    /// Messages of public rooms. Default `messages`.
    public var messages: String
    /// Messages of DM rooms. Default `dm_messages`.
    public var dmMessages: String
    /// Users. Default `users`.
    public var users: String

    public init(
        rooms: String = "rooms",
        dmRooms: String = "dm_rooms",
        messages: String = "messages",
        dmMessages: String = "dm_messages",
        users: String = "users"
    ) {
        self.rooms = rooms
        self.dmRooms = dmRooms
        self.messages = messages
        self.dmMessages = dmMessages
        self.users = users
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case rooms, dmRooms, messages, dmMessages, users }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = DittoCollections()
        self.init(
            rooms: try c.decodeIfPresent(String.self, forKey: .rooms) ?? defaults.rooms,
            dmRooms: try c.decodeIfPresent(String.self, forKey: .dmRooms) ?? defaults.dmRooms,
            messages: try c.decodeIfPresent(String.self, forKey: .messages) ?? defaults.messages,
            dmMessages: try c.decodeIfPresent(String.self, forKey: .dmMessages) ?? defaults.dmMessages,
            users: try c.decodeIfPresent(String.self, forKey: .users) ?? defaults.users
        )
    }

    /// Every problem, each starting with `path` (`apps[0].ditto.collections`): a name is not blank, and no
    /// two kinds share one (an event of a shared collection would be read as the first kind only).
    func problems(at path: String) -> [String] {
        let named: [(String, String)] = [
            ("rooms", rooms), ("dmRooms", dmRooms), ("messages", messages), ("dmMessages", dmMessages),
            ("users", users),
        ]
        var problems: [String] = []
        for (index, (key, name)) in named.enumerated() {
            if name.isBlank {
                problems.append("\(path).\(key): must not be empty")
            } else if let earlier = named[..<index].first(where: { $0.1.isSameId(name) }) {
                problems.append("\(path).\(key): '\(name)' is also \(earlier.0); each kind needs its own collection")
            }
        }
        return problems
    }

    /// What `collection` holds: a configured name first, else ``Kind/messages`` when a mirrored room's
    /// `messagesId` names it, else nil (a collection the relay ignores).
    /// - Parameter roomMessageCollections: the `messagesId` values of the mirrored rooms (or just those equal
    ///   to `collection`: the caller may ask its mirror for that one name).
    public func kind(of collection: String, roomMessageCollections: some Sequence<String> = [String]()) -> Kind? {
        let configured: [(String, Kind)] = [
            (rooms, .rooms), (dmRooms, .dmRooms), (messages, .messages),
            (dmMessages, .dmMessages), (users, .users),
        ]
        if let match = configured.first(where: { $0.0.isSameId(collection) }) { return match.1 }
        return roomMessageCollections.contains { $0.isSameId(collection) } ? .messages : nil
    }
}
