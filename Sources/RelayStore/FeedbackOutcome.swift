import Foundation

/// What became of one feedback POST, recorded by ``Store/completeFeedback(_:at:)``.
public enum FeedbackOutcome: Sendable, Equatable {
    /// The receiver answered 2xx: the item leaves the queue.
    case delivered
    /// Try again at `at`: one more attempt counted, the lease released; `status` is the HTTP status (nil
    /// when no answer came) and `error` a short text (never a body or a secret).
    case retry(at: Date, status: Int?, error: String?)
    /// Give up (expired, or the app no longer has a feedback URL): the item leaves the queue.
    case dropped
}
