/// A table ``StoreCopy`` moves from one store to another, in the order it copies them (a delivery after its
/// notification), with the columns of its rows in a ``StoreBatch``.
///
/// The rows are JSON objects keyed by column name, the same for every engine: times are UNIX epoch
/// MILLISECONDS (numbers), UUIDs lowercase text, tokens as their platform has them (a web device's
/// subscription JSON in `address`, null for the others), ``booleans`` booleans, ``arrays`` arrays of
/// strings, `request_hash` PostgreSQL's hex text of bytes (`\x` and two lowercase hex digits a byte).
/// Leases are not copied: a copied pending delivery, feedback item or Ditto requery is claimable at once.
public enum StoreTable: String, CaseIterable, Sendable {
    case devices
    case roomMembers = "room_members"
    case roomLevels = "room_levels"
    case userSettings = "user_settings"
    case rooms
    case notifications
    case deliveries
    case idempotencyKeys = "idempotency_keys"
    case feedback
    case roomMessages = "room_messages"
    // The mirror of a Ditto app's collections (docs/ditto-kafka.md).
    case dittoDocuments = "ditto_documents"
    case dittoRooms = "ditto_rooms"
    case dittoUsers = "ditto_users"
    case dittoSubscriptions = "ditto_subscriptions"
    case dittoMentions = "ditto_mentions"
    case dittoSeenMessages = "ditto_seen_messages"
    case dittoRequeries = "ditto_requeries"

    /// The columns a row has, by name.
    public var columns: [String] {
        switch self {
        case .devices:
            [
                "app_id", "token", "platform", "user_id", "environment", "state", "created_at", "updated_at",
                "retired_at", "retired_reason", "apns_timestamp", "unlinked_topics", "address",
            ]
        case .roomMembers: ["app_id", "room_id", "user_id", "joined_at", "origin", "read_at"]
        case .roomLevels: ["app_id", "room_id", "user_id", "level"]
        case .userSettings: ["app_id", "user_id", "notify"]
        case .rooms: ["app_id", "room_id", "membership", "updated_at"]
        case .notifications:
            [
                "id", "app_id", "kind", "message_id", "room_id", "sender_id", "text", "image_url", "room_name",
                "sender_name", "topic", "expiration", "created_at", "first_delivery_id", "last_delivery_id",
                "message_at",
            ]
        case .deliveries:
            [
                "id", "notification_id", "app_id", "user_id", "token", "status", "attempts", "next_attempt_at",
                "updated_at", "sent_at", "last_status", "last_reason",
            ]
        case .idempotencyKeys: ["app_id", "scope", "key", "request_hash", "notification_id", "created_at"]
        case .feedback:
            [
                "id", "app_id", "token", "platform", "user_id", "environment", "reason", "apns_timestamp",
                "retired_at", "attempts", "next_attempt_at", "expires_at", "last_status", "last_error", "address",
            ]
        case .roomMessages: ["app_id", "room_id", "message_key", "sender_id", "created_at", "archived", "root_key"]
        case .dittoDocuments: ["app_id", "collection", "doc_id", "txn_id", "removed", "removed_at"]
        case .dittoRooms:
            ["app_id", "collection", "room_id", "is_direct", "name", "messages_id", "is_generated", "participants"]
        case .dittoUsers: ["app_id", "user_id", "name"]
        case .dittoSubscriptions: ["app_id", "room_id", "user_id", "read_at"]
        case .dittoMentions: ["app_id", "room_id", "message_id", "user_id"]
        case .dittoSeenMessages: ["app_id", "message_id", "txn_id", "keep_until"]
        case .dittoRequeries: ["app_id", "txn_id", "completed_txn_id", "requested_at"]
        }
    }

    /// The columns that hold a boolean (SQLite keeps 0 or 1).
    public var booleans: [String] {
        switch self {
        case .roomMessages: ["archived"]
        case .dittoDocuments: ["removed"]
        case .dittoRooms: ["is_direct", "is_generated"]
        default: []
        }
    }

    /// The columns that hold an array of strings (SQLite keeps its JSON text).
    public var arrays: [String] {
        switch self {
        case .devices: ["unlinked_topics"]
        case .dittoRooms: ["participants"]
        default: []
        }
    }

    /// The columns that identify a row, in the order batches are read (each batch starts after the last
    /// row's key).
    public var key: [String] {
        switch self {
        case .devices: ["app_id", "token"]
        case .roomMembers, .roomLevels: ["app_id", "room_id", "user_id"]
        case .userSettings: ["app_id", "user_id"]
        case .rooms: ["app_id", "room_id"]
        case .notifications, .deliveries, .feedback: ["id"]
        case .idempotencyKeys: ["app_id", "scope", "key"]
        case .roomMessages: ["app_id", "room_id", "message_key"]
        case .dittoDocuments: ["app_id", "collection", "doc_id"]
        case .dittoRooms: ["app_id", "collection", "room_id"]
        case .dittoUsers: ["app_id", "user_id"]
        case .dittoSubscriptions: ["app_id", "room_id", "user_id"]
        case .dittoMentions: ["app_id", "room_id", "message_id", "user_id"]
        case .dittoSeenMessages: ["app_id", "message_id"]
        case .dittoRequeries: ["app_id"]
        }
    }

    /// Key columns that hold integers (the rest are text).
    public var integerKey: Bool { key == ["id"] && self != .notifications }
}
