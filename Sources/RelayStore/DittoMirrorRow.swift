import Foundation
import RelayCore

/// Builds the mirror's facts from its rows: one reading for every engine.
package enum DittoMirrorRow {
    /// The columns ``room(row:)`` reads, in its order, of a `ditto_rooms` row (the JSON array of
    /// participants read as text).
    package static let roomColumns = "room_id, is_direct, name, messages_id, is_generated, CAST(participants AS text)"

    /// A room from a row that starts with ``roomColumns``.
    package static func room(row: some StoredRow) throws -> DittoMessageFacts.Room {
        var fields: [String: JSONValue] = ["isGenerated": .bool(try row.bool(4))]
        if let name = row.optionalString(2) { fields["name"] = .string(name) }
        if let messagesId = row.optionalString(3) { fields["messagesId"] = .string(messagesId) }
        let ids = (try? JSONDecoder().decode([String].self, from: Data(row.string(5).utf8))) ?? []
        fields["participants"] = .array(ids.map(JSONValue.string))
        return DittoMessageFacts.Room(
            DittoChatRoom(DittoDocument(id: row.string(0), fields: fields)),
            isDirect: try row.bool(1)
        )
    }

    /// The columns ``subscriber(row:)`` reads, in its order, of a `ditto_subscriptions` row.
    package static let subscriberColumns = "user_id, read_at"

    /// A subscriber from a row that starts with ``subscriberColumns``: a NULL `read_at` is a subscription
    /// whose value is no readable date.
    package static func subscriber(row: some StoredRow) throws -> DittoMessageFacts.Subscriber {
        DittoMessageFacts.Subscriber(
            userId: row.string(0),
            subscription: try row.optionalDate(1).map(DittoChatUser.Subscription.readAt) ?? .unreadable
        )
    }
}
