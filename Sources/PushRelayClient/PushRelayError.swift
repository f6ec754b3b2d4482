import Foundation

/// A call to the relay that did not succeed: the relay's answer (HTTP status and its
/// `{"error":{"code","message"}}`), or why there was none.
public struct PushRelayError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: the relay's error code (`invalid_field`, `unauthorized`, …) or one of the client's
    /// own below. Open, so codes the relay adds need no new release.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No answer: the connection failed or timed out on every attempt (``PushRelayError/cause`` holds
        /// the last `URLError`).
        public static let network = Code(rawValue: "network")
        /// The credential closure threw (``PushRelayError/cause``).
        public static let credentialUnavailable = Code(rawValue: "credential_unavailable")
        /// The client's base URL is not an `http` or `https` URL with a host.
        public static let invalidBaseURL = Code(rawValue: "invalid_base_url")
        /// A room or user id passed to a call is empty: no call is made (the relay would not find the path).
        public static let emptyId = Code(rawValue: "empty_id")
        /// An answer that is not the relay's: not HTTP, an error status without the relay's error body, or a
        /// success body that does not decode.
        public static let unexpectedResponse = Code(rawValue: "unexpected_response")

        // The relay's codes an app acts on (docs/openapi.yaml has them all).

        /// 400: a field the relay refuses (its message names it).
        public static let invalidField = Code(rawValue: "invalid_field")
        /// 400: a device token that is not one of its platform's.
        public static let invalidDeviceToken = Code(rawValue: "invalid_device_token")
        /// 401: the user credential is not accepted, also after one refresh (a JWT the app's key signed whose
        /// claims it refuses has a claim's code instead: `token_expired`, …).
        public static let invalidCredential = Code(rawValue: "invalid_credential")
        /// 403: a call about another user.
        public static let forbiddenUser = Code(rawValue: "forbidden_user")
        /// 403: a message to a room the user is not a member of.
        public static let notAMember = Code(rawValue: "not_a_member")
        /// 403: a message's `recipients` names a user who is not a member of the room.
        public static let recipientNotAMember = Code(rawValue: "recipient_not_a_member")
        /// 403: joining a room the app closed to new members.
        public static let roomClosed = Code(rawValue: "room_closed")
        /// 404: nothing there (a device, a member).
        public static let notFound = Code(rawValue: "not_found")
        /// 404: a read position in a room the user is not a member of.
        public static let memberNotFound = Code(rawValue: "member_not_found")
        /// 409: Ditto holds the app's rooms: joins, leaves and read positions come from it.
        public static let managedByDitto = Code(rawValue: "managed_by_ditto")
        /// 409: a per-user limit (devices, rooms, room levels) is reached.
        public static let limitReached = Code(rawValue: "limit_reached")
        /// 409: the message id names another message.
        public static let messageIdConflict = Code(rawValue: "message_id_conflict")
        /// 422: the call's `Idempotency-Key` was used for another request.
        public static let idempotencyKeyReused = Code(rawValue: "idempotency_key_reused")
        /// 429: over a rate limit, also after the retries (``PushRelayError/retryAfter`` says when to try).
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// 503: the relay cannot check credentials now.
        public static let authUnavailable = Code(rawValue: "auth_unavailable")
    }

    public var code: Code
    public var message: String
    /// The HTTP status of the relay's answer; nil when there was none.
    public var status: Int?
    /// The answer's `Retry-After` in seconds, when it had one: the call ends without waiting when it is
    /// longer than ``PushRelayClient/RetryPolicy/maxDelay``, so the app may try again that much later.
    public var retryAfter: TimeInterval?
    /// The underlying error, for ``Code-swift.struct/network`` and
    /// ``Code-swift.struct/credentialUnavailable``.
    public var cause: (any Error)?

    public init(
        code: Code,
        message: String,
        status: Int? = nil,
        retryAfter: TimeInterval? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.cause = cause
    }

    public var description: String {
        let status = status.map { "HTTP \($0) " } ?? ""
        return "\(status)\(code): \(message)"
    }
}

/// The error's ``PushRelayError/description`` as `localizedDescription`, for an app that shows it.
extension PushRelayError: LocalizedError {
    public var errorDescription: String? { description }
}
