/// Where one delivery (one notification to one device) stands.
public enum DeliveryStatus: String, Sendable, Codable, CaseIterable, Hashable {
    /// Waiting to be sent, or to be retried at `nextAttemptAt`.
    case pending
    /// The push service accepted it (APNs' 200, FCM's or a Web Push service's acceptance).
    case sent
    /// Given up: the push service refused it, retries ran out, or its device was deleted.
    case failed
    /// Its device token was retired (its push service said it is no longer valid, such as APNs' 410), so it
    /// is not sent.
    case retired
    /// Ended unsent by a reason of the chat (``CancelReason``, its `lastReason`): decided when it is claimed
    /// (the recipient read the room up to the message's time) or when its message is deleted.
    case cancelled
}

extension DeliveryStatus {
    /// SQL, both engines: whether a delivery takes a send's result. A pending one does; so does one cancelled
    /// while its push was in flight, which stays cancelled and counts the attempt. One ended otherwise keeps
    /// its end: a relay that stalled past its lease finds its deliveries taken and ended by another relay, and
    /// its late results (a retry after its transfers timed out) would reopen them and send them again.
    package static let takesResultSQL = "status IN ('pending', 'cancelled')"
}

/// Why a delivery ended ``DeliveryStatus/cancelled``: its `lastReason`.
public enum CancelReason: String, Sendable, Codable, CaseIterable, Hashable {
    /// The recipient's read position for the room reached the message's time before the delivery was due.
    case read
    /// The message was deleted (a Ditto delete document) before the delivery was sent.
    case deleted
}
