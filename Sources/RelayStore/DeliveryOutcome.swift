import Foundation

/// The result of one attempt, decided by the dispatcher from the APNs answer, recorded by
/// ``Store/complete(_:at:)``. Every outcome counts one attempt and releases the lease.
public enum DeliveryOutcome: Sendable, Equatable {
    /// APNs accepted it (200): status `sent`, `sentAt` = the completion time, last status 200.
    case sent(apnsId: String?)
    /// Try again at `at`: status stays `pending`, `nextAttemptAt` = `at`.
    case retry(at: Date, status: Int?, reason: String?)
    /// Give up: status `failed`.
    case failed(status: Int?, reason: String?)
    /// The token is invalid (410): the delivery becomes `retired`, the DEVICE is retired (state, retiredAt =
    /// completion time, retiredReason = reason, apnsTimestamp); the device's other pending deliveries
    /// end `retired` when claimed. The device is left alone if it registered again after `apnsTimestamp`
    /// (Apple, "Handling notification responses from APNs": a token re-registered after the 410 timestamp is
    /// valid).
    case retired(status: Int, reason: String, apnsTimestamp: Date?)
    /// APNs refused the topic for this token (DeviceTokenNotForTopic): the delivery `failed`, the topic is
    /// added to the device's ``Device/unlinkedTopics`` (no more deliveries for it are created); the
    /// device's other pending deliveries for that topic end `failed` when claimed.
    case unlinkTopic(topic: String, status: Int, reason: String)
}
