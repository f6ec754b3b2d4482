/// The `errorCode` of an FCM error answer (its `FcmError` detail), as an open enum: a code Google adds later
/// is kept as `.unknown`.
///
/// Source: Firebase, "ErrorCode" (reference/fcm/rest/v1/ErrorCode).
public enum FCMErrorCode: Hashable, Sendable, CustomStringConvertible {
    case unspecifiedError, invalidArgument, unregistered, senderIdMismatch, quotaExceeded, unavailable
    case `internal`, thirdPartyAuthError
    case unknown(String)

    /// Every code Google documents, with the HTTP status and the `google.rpc` status it comes with
    /// (UNSPECIFIED_ERROR comes with any; 500 UNKNOWN stands for it here).
    public static let documented: [(code: FCMErrorCode, httpStatus: Int, status: String)] = [
        (.unspecifiedError, 500, "UNKNOWN"), (.invalidArgument, 400, "INVALID_ARGUMENT"),
        (.unregistered, 404, "NOT_FOUND"), (.senderIdMismatch, 403, "PERMISSION_DENIED"),
        (.quotaExceeded, 429, "RESOURCE_EXHAUSTED"), (.unavailable, 503, "UNAVAILABLE"),
        (.internal, 500, "INTERNAL"), (.thirdPartyAuthError, 401, "UNAUTHENTICATED"),
    ]

    private static let byName: [String: FCMErrorCode] = Dictionary(
        uniqueKeysWithValues: documented.map { ($0.code.description, $0.code) }
    )

    /// The code named by Google's string (`"UNREGISTERED"`), or `.unknown` keeping the raw string.
    public init(_ raw: String) { self = Self.byName[raw] ?? .unknown(raw) }

    /// Google's spelling, e.g. `UNREGISTERED`.
    public var description: String {
        switch self {
        case .unspecifiedError: "UNSPECIFIED_ERROR"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .unregistered: "UNREGISTERED"
        case .senderIdMismatch: "SENDER_ID_MISMATCH"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .unavailable: "UNAVAILABLE"
        case .internal: "INTERNAL"
        case .thirdPartyAuthError: "THIRD_PARTY_AUTH_ERROR"
        case .unknown(let raw): raw
        }
    }
}
