import Foundation
import RelayCore

/// Builds the mirror's facts from the columns of its rows: one reading for every engine.
package enum DittoMirrorRow {
    /// A room row: `participants` is the JSON array of user ids as stored.
    package static func room(
        id: String,
        isDirect: Bool,
        name: String?,
        messagesId: String?,
        isGenerated: Bool,
        participants: String
    ) -> DittoMessageFacts.Room {
        var fields: [String: JSONValue] = ["isGenerated": .bool(isGenerated)]
        if let name { fields["name"] = .string(name) }
        if let messagesId { fields["messagesId"] = .string(messagesId) }
        let ids = (try? JSONDecoder().decode([String].self, from: Data(participants.utf8))) ?? []
        fields["participants"] = .array(ids.map(JSONValue.string))
        return DittoMessageFacts.Room(DittoChatRoom(DittoDocument(id: id, fields: fields)), isDirect: isDirect)
    }

    /// A subscription row: a NULL `read_at` is a subscription whose value is no readable date.
    package static func subscriber(userId: String, readAt: Date?) -> DittoMessageFacts.Subscriber {
        DittoMessageFacts.Subscriber(
            userId: userId,
            subscription: readAt.map(DittoChatUser.Subscription.readAt) ?? .unreadable
        )
    }
}
