import Foundation

/// A DittoChat user document (the app's users collection), read leniently.
public struct DittoChatUser: Sendable, Equatable {
    /// A room subscription: absent or null means not subscribed; a date is when the user last read it.
    public enum Subscription: Sendable, Equatable {
        case readAt(Date)
        /// Subscribed, but the value is not a date the relay can read (it notifies, as for never read).
        case unreadable
    }

    public let id: String
    /// Cut as ``DittoChatRoom/name`` is.
    public let name: String?
    /// Subscribed rooms by id (rooms whose value is null are left out).
    public let subscriptions: [String: Subscription]
    /// Message ids the user is mentioned in, by room id.
    public let mentions: [String: [String]]
    // Room and message ids no message could name (``ChatMessage/idProblem(_:)``: too long, blank, control
    // characters) are left out of both: they would key rows no push reads, past what an index keeps.

    public init(_ document: DittoDocument) {
        id = document.id
        name = document.string("name").map(ChatMessage.shownName)
        var subscriptions: [String: Subscription] = [:]
        for (room, value) in document.object("subscriptions") ?? [:]
        where value != .null && ChatMessage.idProblem(room) == nil {
            subscriptions[room] = value.string.flatMap(Timestamp.parse).map(Subscription.readAt) ?? .unreadable
        }
        self.subscriptions = subscriptions
        var mentions: [String: [String]] = [:]
        for (room, value) in document.object("mentions") ?? [:] where ChatMessage.idProblem(room) == nil {
            if case .array(let ids) = value {
                mentions[room] = ids.compactMap(\.string).filter { ChatMessage.idProblem($0) == nil }
            }
        }
        self.mentions = mentions
    }

    private init(id: String, name: String?, subscriptions: [String: Subscription], mentions: [String: [String]]) {
        self.id = id
        self.name = name
        self.subscriptions = subscriptions
        self.mentions = mentions
    }

    /// The user with every read date later than `latest` moved back to `latest`: a read date in the
    /// future (a device whose clock runs ahead) counts as a read at its arrival.
    public func readDatesClamped(to latest: Date) -> DittoChatUser {
        DittoChatUser(
            id: id,
            name: name,
            subscriptions: subscriptions.mapValues {
                if case .readAt(let date) = $0, date > latest { .readAt(latest) } else { $0 }
            },
            mentions: mentions
        )
    }
}
