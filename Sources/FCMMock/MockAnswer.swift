import FCMCore
import Foundation
import MockHTTP2
import RelayCore

/// One answer of the mock FCM before it is submitted: status, headers (besides `:status` and
/// `content-length`), body, and what is recorded of it (the errorCode, or the name of a message sent).
struct MockAnswer {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var errorCode: String?
    var messageName: String?

    /// The answer as HTTP/2.
    var reply: MockReply { MockReply(status: status, headers: headers, body: body) }

    /// A JSON answer of any Encodable body.
    static func json(_ status: Int, _ value: some Encodable, errorCode: String? = nil) -> MockAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)).map(Array.init) ?? []
        return MockAnswer(
            status: status,
            headers: [("content-type", "application/json; charset=UTF-8")],
            body: body,
            errorCode: errorCode,
            messageName: nil
        )
    }

    /// A Google API error (Firebase, "FCM error codes"): the google.rpc `status`, an `FcmError` detail with
    /// `errorCode` when given, a `BadRequest` detail naming `field` when given.
    static func googleError(
        _ status: Int,
        _ rpcStatus: String,
        _ message: String,
        errorCode: String? = nil,
        field: String? = nil
    ) -> MockAnswer {
        var details: [FCMErrorBody.Detail] = []
        if let errorCode { details.append(.init(type: FCMLimits.fcmErrorType, errorCode: errorCode)) }
        if let field {
            details.append(
                .init(type: FCMLimits.badRequestType, fieldViolations: [.init(field: field, description: message)])
            )
        }
        let body = FCMErrorBody(
            error: .init(code: status, message: message, status: rpcStatus, details: details.isEmpty ? nil : details)
        )
        return json(status, body, errorCode: errorCode ?? rpcStatus)
    }

    /// 400 INVALID_ARGUMENT, as FCM answers a malformed message.
    static func invalidArgument(_ message: String, field: String? = nil) -> MockAnswer {
        googleError(400, "INVALID_ARGUMENT", message, errorCode: "INVALID_ARGUMENT", field: field)
    }

    /// 401 UNAUTHENTICATED without FcmError: the access token is missing, unknown or expired.
    static func unauthenticated(_ message: String) -> MockAnswer {
        var answer = googleError(401, "UNAUTHENTICATED", message)
        answer.headers.append(("www-authenticate", "Bearer realm=\"https://accounts.google.com/\""))
        return answer
    }

    private struct OAuthError: Encodable {
        var error: String
        var errorDescription: String

        private enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    /// An OAuth 2.0 error answer of the token endpoint (RFC 6749 §5.2), e.g. 400 `invalid_grant`.
    static func oauthError(_ status: Int, _ error: String, _ description: String) -> MockAnswer {
        json(status, OAuthError(error: error, errorDescription: description), errorCode: error)
    }

    /// The answer a script rule asks for: its errorCode with the documented statuses, or 401
    /// UNAUTHENTICATED; `Retry-After` when the rule gives one.
    static func scripted(_ rule: MockFCMScript.DeviceRule, error: String) -> MockAnswer {
        var answer: MockAnswer
        if error == MockFCMScript.DeviceRule.unauthenticated {
            answer = unauthenticated(rule.message ?? "Request had invalid authentication credentials.")
            if let status = rule.status { answer.status = status }
        } else {
            let code = FCMErrorCode(error)
            let documented = FCMErrorCode.documented.first { $0.code == code }
            let message = rule.message ?? defaultMessage(code, field: rule.field)
            answer = googleError(
                rule.status ?? documented?.httpStatus ?? 500,
                documented?.status ?? "UNKNOWN",
                message,
                errorCode: error,
                field: rule.field
            )
        }
        if let seconds = rule.retryAfter { answer.headers.append(("retry-after", String(seconds))) }
        return answer
    }

    private static func defaultMessage(_ code: FCMErrorCode, field: String?) -> String {
        switch code {
        case .invalidArgument where field == "message.token":
            "The registration token is not a valid FCM registration token"
        case .invalidArgument: "Request contains an invalid argument."
        case .unregistered: "Requested entity was not found."
        case .senderIdMismatch: "SenderId mismatch"
        case .quotaExceeded: "Quota exceeded for quota metric 'Send messages' of service 'fcm.googleapis.com'."
        case .unavailable: "The service is currently unavailable."
        case .internal: "Internal error encountered."
        case .thirdPartyAuthError: "Auth error from APNS or Web Push Service"
        case .unspecifiedError, .unknown: "Unknown error."
        }
    }
}
