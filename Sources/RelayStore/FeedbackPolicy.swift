import Foundation

/// Which apps' token retirements are queued for feedback (their `feedbackURL`), and how long a queued
/// retirement may wait for a 2xx before it is dropped.
///
/// Retirements of apps not in ``appIds`` queue nothing, so rows for apps without a feedback URL never pile
/// up. The store starts with ``none``; the relay sets the policy from its configuration at start.
public struct FeedbackPolicy: Sendable, Equatable {
    /// Apps that have a feedback URL.
    public var appIds: Set<String>
    /// A queued retirement expires this many SECONDS after the retirement; default 86,400 (24 h).
    public var lifetimeSeconds: Int

    public init(appIds: Set<String>, lifetimeSeconds: Int = 86_400) {
        self.appIds = appIds
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// Nothing is queued.
    public static let none = FeedbackPolicy(appIds: [])
}
