import Foundation
import RelayCore

/// A claimed feedback item: one retired token to POST to its app's feedback URL.
public struct FeedbackJob: Sendable, Equatable {
    /// Pass back to ``Store/completeFeedback(_:at:)``.
    public var feedbackId: Int64
    public var appId: String
    /// The full token as it was registered (an APNs token with its environment); only
    /// ``RelayCore/PushToken/suffix`` may be logged.
    public var token: PushToken
    /// The user the token was registered to when it was retired.
    public var userId: String
    /// Why it was retired, e.g. `Unregistered`, `BadDeviceToken`.
    public var reason: String
    /// Since when the token is known invalid (``Device/invalidSince``).
    public var invalidSince: Date?
    /// When the relay retired the token.
    public var retiredAt: Date
    /// POSTs tried so far (0 on the first).
    public var attempts: Int
    /// After this the item is dropped instead of sent.
    public var expiresAt: Date

    public init(
        feedbackId: Int64,
        appId: String,
        token: PushToken,
        userId: String,
        reason: String,
        invalidSince: Date?,
        retiredAt: Date,
        attempts: Int,
        expiresAt: Date
    ) {
        self.feedbackId = feedbackId
        self.appId = appId
        self.token = token
        self.userId = userId
        self.reason = reason
        self.invalidSince = invalidSince
        self.retiredAt = retiredAt
        self.attempts = attempts
        self.expiresAt = expiresAt
    }
}
