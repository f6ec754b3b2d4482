import RelayStore

/// The answer of `POST /v1/ditto/events`: what the batch came to.
struct DittoEventsAnswer: Encodable {
    var applied: Int
    var duplicates: Int
    var ignored: Int
    var notifications: Int
    /// The first message document a push cannot read, when one was (left out of the JSON when none).
    var unreadable: DittoUnreadable?

    init(_ counts: DittoApplyCounts) {
        applied = counts.applied
        duplicates = counts.duplicates
        ignored = counts.ignored
        notifications = counts.notifications
        unreadable = counts.unreadable
    }
}
