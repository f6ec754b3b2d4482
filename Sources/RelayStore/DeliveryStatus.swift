/// Where one delivery (one notification to one device) stands.
public enum DeliveryStatus: String, Sendable, Codable, CaseIterable, Hashable {
    /// Waiting to be sent, or to be retried at `nextAttemptAt`.
    case pending
    /// APNs accepted it (200).
    case sent
    /// Given up: APNs refused it, retries ran out, or its device was deleted.
    case failed
    /// Its device token was retired (410), so it is not sent.
    case retired
}
