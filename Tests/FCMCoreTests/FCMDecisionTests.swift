import FCMCore
import Foundation
import RelayCore
import Testing

/// FCM's error table (Firebase, "FCM error codes") as the relay reads it: each answer built as FCM's JSON
/// body, parsed by ``FCMResponse``, decided by ``FCMDecision``.
@Suite struct FCMDecisionTests {
    static let policy = RetryPolicy(maxAttempts: 3, baseDelayMilliseconds: 1000, maxDelayMilliseconds: 60_000)
    static let retrySoon = FCMDecision.retry(after: .milliseconds(500))

    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var errorCode: String?
        var rpcStatus: String
        var message = "error"
        var fields: [String] = []
        var retryAfter: String?
        var expected: FCMDecision
        var testDescription: String { "\(status) \(errorCode ?? rpcStatus) \(fields) -> \(expected)" }
    }

    /// The body FCM sends for an error: the google.rpc status, an FcmError detail when there is an
    /// errorCode, a BadRequest detail when fields are named.
    static func body(_ row: Row) -> Data {
        var details: [FCMErrorBody.Detail] = []
        if let code = row.errorCode { details.append(.init(type: FCMLimits.fcmErrorType, errorCode: code)) }
        if !row.fields.isEmpty {
            details.append(
                .init(type: FCMLimits.badRequestType, fieldViolations: row.fields.map { .init(field: $0) })
            )
        }
        let error = FCMErrorBody(
            error: .init(code: row.status, message: row.message, status: row.rpcStatus, details: details)
        )
        return try! JSONEncoder().encode(error)
    }

    static func decide(_ row: Row, attempts: Int = 1) -> FCMDecision {
        let response = FCMResponse(status: row.status, body: body(row), retryAfterHeader: row.retryAfter)
        return FCMDecision.decide(.answered(response), attempts: attempts, policy: policy, random: 0)
    }

    static let table: [Row] = [
        Row(status: 404, errorCode: "UNREGISTERED", rpcStatus: "NOT_FOUND", expected: .retire(.unregistered)),
        Row(
            status: 403,
            errorCode: "SENDER_ID_MISMATCH",
            rpcStatus: "PERMISSION_DENIED",
            expected: .retire(.senderIdMismatch)
        ),
        Row(
            status: 400,
            errorCode: "INVALID_ARGUMENT",
            rpcStatus: "INVALID_ARGUMENT",
            message: "The registration token is not a valid FCM registration token",
            expected: .retire(.invalidArgument)
        ),
        Row(
            status: 400,
            errorCode: nil,
            rpcStatus: "INVALID_ARGUMENT",
            message: "Invalid value at 'message.token'",
            fields: ["message.token"],
            expected: .retire(.invalidArgument)
        ),
        Row(
            status: 400,
            errorCode: "INVALID_ARGUMENT",
            rpcStatus: "INVALID_ARGUMENT",
            message: "Message is too big",
            expected: .fail(.rejected)
        ),
        Row(
            status: 400,
            errorCode: nil,
            rpcStatus: "INVALID_ARGUMENT",
            message: "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
            fields: ["message.data[0].value"],
            expected: .fail(.rejected)
        ),
        Row(status: 429, errorCode: "QUOTA_EXCEEDED", rpcStatus: "RESOURCE_EXHAUSTED", expected: retrySoon),
        Row(status: 503, errorCode: "UNAVAILABLE", rpcStatus: "UNAVAILABLE", expected: retrySoon),
        Row(status: 500, errorCode: "INTERNAL", rpcStatus: "INTERNAL", expected: retrySoon),
        Row(status: 500, errorCode: "UNSPECIFIED_ERROR", rpcStatus: "UNKNOWN", expected: retrySoon),
        Row(
            status: 401,
            errorCode: "THIRD_PARTY_AUTH_ERROR",
            rpcStatus: "UNAUTHENTICATED",
            expected: .credentialsRefused
        ),
        Row(status: 401, errorCode: nil, rpcStatus: "UNAUTHENTICATED", expected: .credentialsRefused),
        // Without FCM's errorCode a 404 or 403 is the project's or account's problem: no token is retired; a
        // 403 refuses the relay's account (the sends pause), a 404 names no project (the delivery fails).
        Row(status: 404, errorCode: nil, rpcStatus: "NOT_FOUND", expected: .fail(.configuration)),
        Row(status: 403, errorCode: nil, rpcStatus: "PERMISSION_DENIED", expected: .credentialsRefused),
        Row(status: 503, errorCode: "SOMETHING_NEW", rpcStatus: "UNAVAILABLE", expected: retrySoon),
        Row(status: 409, errorCode: "SOMETHING_NEW", rpcStatus: "ABORTED", expected: .fail(.rejected)),
    ]

    @Test(arguments: table)
    func answersMapToFates(row: Row) {
        #expect(Self.decide(row) == row.expected)
    }

    @Test func anAcceptedMessageIsDeliveredWithItsName() throws {
        let body = Data(#"{"name":"projects/chat-app/messages/0:1500415314455276%31bd1c96f9fd7ecd"}"#.utf8)
        let response = FCMResponse(status: 200, body: body, retryAfterHeader: nil)
        #expect(response.name == "projects/chat-app/messages/0:1500415314455276%31bd1c96f9fd7ecd")
        #expect(FCMDecision.decide(.answered(response), attempts: 1, policy: Self.policy, random: 0) == .delivered)
    }

    /// An accepted message's name is read from a JSON object's string member, escapes undone; any other
    /// body leaves it unnamed and still delivered.
    @Test(arguments: [
        (#"{"other":1,"name":"projects/a/messages/0:1\u00e9\/x"}"#, "projects/a/messages/0:1é/x"),
        (#"{"name":"a\u0000b"}"#, nil),
        (#"{"name":7}"#, nil), (#"["name"]"#, nil), (#"{"name":"a","name":"b"}"#, nil), (#"{"name":"a"} x"#, nil),
        ("", nil), ("not json", nil),
    ])
    func anAcceptedAnswerNamesItsMessageOnlyWhenItSaysSo(body: String, name: String?) throws {
        let response = FCMResponse(status: 200, body: Data(body.utf8), retryAfterHeader: nil)
        #expect(response.name == name)
        #expect(FCMDecision.decide(.answered(response), attempts: 1, policy: Self.policy, random: 0) == .delivered)
    }

    @Test func retryAfterIsHonouredWhenLongerThanTheBackOff() {
        let quota = Row(
            status: 429,
            errorCode: "QUOTA_EXCEEDED",
            rpcStatus: "RESOURCE_EXHAUSTED",
            retryAfter: "30",
            expected: .delivered
        )
        #expect(Self.decide(quota) == .retry(after: .seconds(30)))
        var short = quota
        short.retryAfter = "0"
        #expect(Self.decide(short) == Self.retrySoon)
    }

    /// A Retry-After of years (or of more seconds than a date holds) waits the policy's longest delay.
    @Test func retryAfterIsCappedAtThePolicysLongestDelay() {
        for header in ["31536000", "9300000000000000"] {
            let row = Row(
                status: 503,
                errorCode: "UNAVAILABLE",
                rpcStatus: "UNAVAILABLE",
                retryAfter: header,
                expected: .delivered
            )
            #expect(Self.decide(row) == .retry(after: .milliseconds(Self.policy.maxDelayMilliseconds)), "\(header)")
        }
    }

    @Test func retryAfterAsAnHTTPDateIsADelayFromNow() {
        let date = "Fri, 15 Jan 2027 08:00:45 GMT"  // 1_800_000_045
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(FCMResponse(status: 503, body: Data(), retryAfterHeader: date, now: now).retryAfter == .seconds(45))
        let later = Date(timeIntervalSince1970: 1_800_000_100)
        #expect(FCMResponse(status: 503, body: Data(), retryAfterHeader: date, now: later).retryAfter == .zero)
        #expect(FCMResponse(status: 503, body: Data(), retryAfterHeader: "soon", now: now).retryAfter == nil)
    }

    @Test func retriesStopAtTheLimit() {
        let unavailable = Row(status: 503, errorCode: "UNAVAILABLE", rpcStatus: "UNAVAILABLE", expected: .delivered)
        #expect(Self.decide(unavailable, attempts: 2) == .retry(after: .milliseconds(1000)))
        #expect(Self.decide(unavailable, attempts: 3) == .fail(.exhausted))
        // No answer is no attempt the limit counts.
        #expect(FCMDecision.decide(.transportFailure, attempts: 1, policy: Self.policy, random: 0) == .unreachable)
        #expect(FCMDecision.decide(.transportFailure, attempts: 3, policy: Self.policy, random: 0) == .unreachable)
    }

    /// The token endpoint refusing the service account refuses the relay's credentials, not the message,
    /// however many attempts were made: no attempt the limit counts.
    @Test func aRefusedServiceAccountIsARefusalOfCredentials() {
        for attempts in [1, 3] {
            let refused = FCMDecision.Attempt.accessTokenRefused(status: 400)
            #expect(
                FCMDecision.decide(refused, attempts: attempts, policy: Self.policy, random: 0) == .credentialsRefused
            )
        }
    }

    @Test func aBodyThatIsNotGooglesJSONKeepsItsTextAndIsDecidedByStatus() {
        let response = FCMResponse(status: 502, body: Data("<html>Bad Gateway</html>".utf8), retryAfterHeader: nil)
        #expect(response.errorCode == nil)
        #expect(response.message == "<html>Bad Gateway</html>")
        #expect(FCMDecision.decide(.answered(response), attempts: 1, policy: Self.policy, random: 0) == Self.retrySoon)
    }
}
