import Foundation
import MockHTTP2

/// An error answer of the mock push service, with a body like Mozilla autopush's: `{"code": <status>,
/// "errno": <n>, "error": "<status text>", "message": "<what is wrong>"}` (autopush, "Error Codes").
///
/// The errnos are autopush's: 102 unknown subscription, 103 subscription gone, 104 payload too large, 109
/// VAPID authentication refused, 110 the encrypted body or its headers are not usable, 111 a required header
/// is missing, 112 a header's value is not valid, 201 back off and retry, 999 anything else.
struct PushError: Sendable, Equatable {
    var status: Int
    var errno: Int
    var message: String
    /// `Retry-After` in SECONDS, when the answer carries one.
    var retryAfter: Int?

    /// The answer as HTTP/2.
    var reply: MockReply {
        var headers = [("content-type", "application/json")]
        if status == 401 { headers.append(("www-authenticate", "vapid")) }
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        let body: [String: Any] = [
            "code": status, "errno": errno, "error": Self.statusText(status), "message": message,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
        return MockReply(status: status, headers: headers, body: data.map(Array.init) ?? [])
    }

    static func notFound(_ message: String) -> PushError { PushError(status: 404, errno: 102, message: message) }
    static func badRequest(_ errno: Int, _ message: String) -> PushError {
        PushError(status: 400, errno: errno, message: message)
    }

    /// A scripted answer: `status` with its usual errno and message unless the rule gives one.
    static func scripted(status: Int, message: String?, retryAfter: Int?) -> PushError {
        let (errno, usual): (Int, String) =
            switch status {
            case 400: (112, "Bad request")
            case 401: (109, "Unauthorized: VAPID authentication required")
            case 403: (109, "Forbidden: the VAPID credentials are not accepted for this subscription")
            case 404: (102, "Request did not validate: unknown subscription")
            case 410: (103, "Subscription expired or unsubscribed")
            case 413: (104, "Message payload too large")
            case 429: (201, "Too many requests; back off and retry")
            case 503: (201, "Service unavailable; retry later")
            default: (999, "Internal server error")
            }
        return PushError(status: status, errno: errno, message: message ?? usual, retryAfter: retryAfter)
    }

    static func statusText(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}
