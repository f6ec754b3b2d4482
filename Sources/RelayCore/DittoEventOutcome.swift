/// What one Ditto change event came to: the closed set of outcomes counted by app and collection (metric
/// label values, so a metric never takes anything else).
public enum DittoEventOutcome: String, Sendable, CaseIterable, Hashable {
    /// A mirrored document (a room or a user) changed or was removed.
    case applied
    /// The same change (`txnId`, collection, `_id`) was applied before: nothing changes.
    case duplicate
    /// Nothing to do: an unknown collection or event type, a stale `txnId`, an archived message, or a message
    /// with nothing to show (``DittoMessageRule/screen(_:in:now:)``).
    case ignored
    /// A new message became a notification.
    case notified
    /// A message older than `maxMessageAgeSeconds` when it arrived: pushed to nobody.
    case tooOld = "too_old"
    /// A JS edit or delete: a new document that is not a new message.
    case editOrDelete = "edit_or_delete"
    /// An event whose structure cannot be read (``DittoEventError``), or a message document without a field a
    /// push needs (``DittoMessageRule/Screening/unreadable(field:)``).
    case invalid
    /// A record of the Kafka stream removed before the relay read it (the topic's retention passed the
    /// group's committed offset): never applied.
    case lost
}
