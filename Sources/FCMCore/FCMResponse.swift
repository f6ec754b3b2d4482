import Foundation
import RelayCore
import RelayStrictJSON

/// What FCM answered to one `messages:send`. Records the answer; decides nothing (``FCMDecision`` does).
///
/// Source: Firebase, "REST Resource: projects.messages" (200 answers `{"name": "projects/{project_id}/
/// messages/{message_id}"}`) and "FCM error codes" (error answers, see ``FCMErrorBody``).
public struct FCMResponse: Sendable, Equatable {
    /// HTTP status: 200 accepted; otherwise an error.
    public var status: Int
    /// The message's name on 200, e.g. `projects/my-app/messages/0:1500415314455276%31bd1c96f9fd7ecd`.
    public var name: String?
    /// The `errorCode` of the `FcmError` detail; nil on 200 and for errors without one (an expired access
    /// token: 401 UNAUTHENTICATED; a wrong project: 404 NOT_FOUND).
    public var errorCode: FCMErrorCode?
    /// The `google.rpc` status name, e.g. `NOT_FOUND`; nil on 200 or when the body is not Google's JSON.
    public var errorStatus: String?
    /// The error's `message`, or the first 200 bytes of a body that is not Google's JSON. Never holds a
    /// full registration token from us (Google's messages do not quote it).
    public var message: String?
    /// The fields a `BadRequest` detail names, e.g. `message.token`.
    public var violatedFields: [String]
    /// `Retry-After` (429, 503): how long to wait before trying again.
    public var retryAfter: Duration?

    public init(
        status: Int,
        name: String? = nil,
        errorCode: FCMErrorCode? = nil,
        errorStatus: String? = nil,
        message: String? = nil,
        violatedFields: [String] = [],
        retryAfter: Duration? = nil
    ) {
        self.status = status
        self.name = name
        self.errorCode = errorCode
        self.errorStatus = errorStatus
        self.message = message
        self.violatedFields = violatedFields
        self.retryAfter = retryAfter
    }

    /// True when FCM accepted the message (200).
    public var isAccepted: Bool { status == 200 }

    /// True when the error is about the registration token rather than the message: a `BadRequest` names
    /// `message.token`, or the message says the registration token is not valid (FCM's answer to a
    /// malformed token: INVALID_ARGUMENT, "The registration token is not a valid FCM registration token").
    public var namesToken: Bool {
        violatedFields.contains("message.token") || message?.lowercased().contains("registration token") == true
    }

    /// Builds the model from a status, the raw body and the `Retry-After` header.
    /// - Parameters:
    ///   - retryAfterHeader: read by ``RetryAfter/delay(_:now:)``.
    public init(status: Int, body: Data, retryAfterHeader: String?, now: Date = Date()) {
        self.init(status: status, retryAfter: retryAfterHeader.flatMap { RetryAfter.delay($0, now: now) })
        if status == 200 {
            // jansson: Foundation's decoder cost more than the rest of reading an answer, once a push.
            name = StrictJSON.stringMember("name", of: body)
        } else if let decoded = try? JSONDecoder().decode(FCMErrorBody.self, from: body) {
            errorCode = decoded.errorCode.map(FCMErrorCode.init)
            errorStatus = decoded.error.status
            message = decoded.error.message
            violatedFields = decoded.violatedFields
        } else if !body.isEmpty {
            message = String(decoding: body.prefix(200), as: UTF8.self)
        }
    }
}
