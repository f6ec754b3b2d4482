import FCMCore
import Foundation
import MockHTTP2
import RelayCore

/// Scripted answers of the mock FCM, per registration token.
///
/// JSON form (every field except `token` optional; see fixtures/fcm/mock-script.json):
/// ```json
/// {
///   "devices": [
///     {"token": "<registration token>", "error": "UNREGISTERED"},
///     {"token": "<registration token>", "error": "INVALID_ARGUMENT", "field": "message.token"},
///     {"token": "<registration token>", "error": "QUOTA_EXCEEDED", "retryAfter": 30, "count": 2},
///     {"token": "<registration token>", "error": "UNAUTHENTICATED", "count": 1},
///     {"token": "<registration token>", "delayMs": 250},
///     {"token": "<registration token>", "neverAnswer": true},
///     {"token": "*", "error": "UNAVAILABLE", "count": 1}
///   ]
/// }
/// ```
/// Rules apply only to messages that passed authentication and validation, in order: the first rule whose
/// `token` matches exactly (case matters) or is `"*"`, and whose `count` is not used up, decides the answer.
/// `error` is an FCM errorCode (Firebase, "ErrorCode": answered with its documented HTTP and google.rpc
/// status and an `FcmError` detail) or `UNAUTHENTICATED` (401 without FcmError: the access token is
/// refused). Replacing the script resets every count.
public struct MockFCMScript: Codable, Sendable, Equatable {
    /// Answers by registration token.
    public var devices: [DeviceRule]

    public init(devices: [DeviceRule] = []) { self.devices = devices }

    /// Reads a script from a JSON file.
    /// - Throws: ``MockFCMError`` `.script` when the file cannot be read or is not the documented JSON.
    public init(contentsOf url: URL) throws(MockFCMError) {
        try self.init(json: Self.scriptData(contentsOf: url))
    }

    /// Decodes a script from JSON bytes.
    /// - Throws: ``MockFCMError`` `.script` when the bytes are not the documented JSON or name an error
    ///   FCM does not have without a `status`.
    public init(json data: Data) throws(MockFCMError) {
        self = try Self.decoded(json: data)
        let problems = devices.compactMap(\.problem)
        guard problems.isEmpty else { throw MockFCMError(.script, problems.joined(separator: "; ")) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        devices = try container.decodeIfPresent([DeviceRule].self, forKey: .devices) ?? []
    }

    /// How the mock answers a registration token.
    public struct DeviceRule: Codable, Sendable, Equatable {
        /// The registration token this rule is for, exactly, or `"*"` for every token.
        public var token: String
        /// An FCM errorCode (`UNREGISTERED`, `SENDER_ID_MISMATCH`, `INVALID_ARGUMENT`, `QUOTA_EXCEEDED`,
        /// `UNAVAILABLE`, `INTERNAL`, `THIRD_PARTY_AUTH_ERROR`, `UNSPECIFIED_ERROR`) or `UNAUTHENTICATED`;
        /// nil answers 200 as usual.
        public var error: String?
        /// The HTTP status; default the error's documented one. Required for an errorCode FCM does not have.
        public var status: Int?
        /// The error's `message`; default one like Google's.
        public var message: String?
        /// A field the answer's `BadRequest` detail names, e.g. `message.token`.
        public var field: String?
        /// `Retry-After` in SECONDS.
        public var retryAfter: Int?
        /// Wait this many MILLISECONDS before answering.
        public var delayMs: Int?
        /// Never answer: the stream stays open until the client resets it or the connection closes.
        public var neverAnswer: Bool?
        /// Apply the rule to this many matching messages, then fall through (nil: every message).
        public var count: Int?

        public init(
            token: String,
            error: String? = nil,
            status: Int? = nil,
            message: String? = nil,
            field: String? = nil,
            retryAfter: Int? = nil,
            delayMs: Int? = nil,
            neverAnswer: Bool? = nil,
            count: Int? = nil
        ) {
            self.token = token
            self.error = error
            self.status = status
            self.message = message
            self.field = field
            self.retryAfter = retryAfter
            self.delayMs = delayMs
            self.neverAnswer = neverAnswer
            self.count = count
        }

        /// What is wrong with the rule, if anything.
        var problem: String? {
            guard let error, status == nil else { return nil }
            if error == Self.unauthenticated { return nil }
            if case .unknown = FCMErrorCode(error) {
                return "'\(error)' is not an FCM errorCode (nor UNAUTHENTICATED); give a status to use it anyway"
            }
            return nil
        }

        /// The `error` that refuses the access token.
        static let unauthenticated = "UNAUTHENTICATED"
    }
}

extension MockFCMScript: MockScripted {}

extension MockFCMScript.DeviceRule: MockDeviceRule {
    /// A rule is for its token exactly (case matters), or for every token with `"*"`.
    package func applies(to token: String) -> Bool { self.token == "*" || self.token == token }
}
