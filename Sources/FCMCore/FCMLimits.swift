import RelayCore

/// What FCM HTTP v1 and Google's OAuth 2.0 endpoint require, in one place for the client's local checks and
/// the mock's answers.
///
/// Sources: Firebase, "Send a message using FCM HTTP v1 API", "REST Resource: projects.messages", "FCM error
/// codes" (ErrorCode); Google, "Using OAuth 2.0 for Server to Server Applications".
public enum FCMLimits {
    /// Where messages go: `https://fcm.googleapis.com`.
    public static let productionBaseURL = "https://fcm.googleapis.com"
    /// The most bytes of one message to a token. FCM counts the payload's keys and values; the relay and the
    /// mock count the whole request body (`{"message":{...}}`), which is more, so a message within this is
    /// within FCM's limit too.
    public static let maxMessageBytes = 4096
    /// The longest `android.ttl`: 28 days, in SECONDS (the configuration's bound on `apps[].ttlSeconds`).
    public static let maxTTLSeconds = Configuration.maxTTLSeconds
    /// The OAuth 2.0 scope an access token needs to send messages.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The `grant_type` of a JWT-bearer token request (RFC 7523 §2.1).
    public static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The longest an assertion may live, `exp - iat`: 3600 SECONDS.
    public static let maxAssertionLifetimeSeconds = 3600
    /// The `@type` of the error detail that carries FCM's `errorCode`.
    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// The `@type` of the error detail that names the fields at fault.
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// The path of the send call for a project: `/v1/projects/{projectId}/messages:send`.
    public static func sendPath(projectId: String) -> String { "/v1/projects/\(projectId)/messages:send" }

    /// True for a `data` key FCM keeps for itself and refuses with INVALID_ARGUMENT: `from`, `notification`,
    /// `message_type`, or any key starting with `google` or `gcm`.
    public static func isReservedDataKey(_ key: String) -> Bool {
        ["from", "notification", "message_type"].contains(key) || key.hasPrefix("google") || key.hasPrefix("gcm")
    }
}
