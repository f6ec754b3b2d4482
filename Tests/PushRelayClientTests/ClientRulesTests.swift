import Foundation
import Testing

@testable import PushRelayClient

/// The client's pure rules: token hex, back-off, `Retry-After`, URLs.
@Suite("PushRelayClient rules")
struct ClientRulesTests {
    @Test("The token Data becomes the chat SDK's hex: %02.2hhx per byte, for every byte value")
    func tokenHex() {
        let every = Data((0...255).map { UInt8($0) })
        #expect(PushRelayClient.hexString(deviceToken: every) == every.map { String(format: "%02.2hhx", $0) }.joined())
        #expect(PushRelayClient.hexString(deviceToken: Data([0x00, 0x0F, 0xAB, 0xFF])) == "000fabff")
        #expect(PushRelayClient.hexString(deviceToken: Data()) == "")
    }

    @Test(
        "Back-off doubles from baseDelay up to maxDelay, scaled by jitter, never under Retry-After",
        arguments: [
            // (attempt, retryAfter, jitter, expected)
            (1, nil, 1.0, 0.5), (2, nil, 1.0, 1.0), (3, nil, 1.0, 2.0), (1, nil, 0.0, 0.25),
            (7, nil, 1.0, 30.0), (60, nil, 0.0, 15.0), (1, 3.0, 1.0, 3.0), (3, 1.0, 1.0, 2.0),
            (2, 30.0, 0.0, 30.0),
        ] as [(Int, Double?, Double, Double)]
    )
    func backOff(attempt: Int, retryAfter: Double?, jitter: Double, expected: Double) {
        let policy = PushRelayClient.RetryPolicy(maxAttempts: 100, baseDelay: 0.5, maxDelay: 30)
        #expect(policy.delay(afterAttempt: attempt, retryAfter: retryAfter, jitter: jitter) == expected)
    }

    @Test("No attempt follows the last one, nor a Retry-After longer than maxDelay")
    func noMoreAttempts() {
        let policy = PushRelayClient.RetryPolicy(maxAttempts: 3, baseDelay: 0.5, maxDelay: 30)
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil, jitter: 0.5) != nil)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, jitter: 0.5) == nil)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 31, jitter: 0.5) == nil)
        #expect(PushRelayClient.RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    @Test("maxDelay is at most a day, so no Retry-After makes a wait the sleep cannot hold")
    func longestDelay() {
        var policy = PushRelayClient.RetryPolicy(maxAttempts: 3, maxDelay: .infinity)
        #expect(policy.maxDelay == 86_400)
        policy.maxDelay = 1e12
        #expect(policy.maxDelay == 86_400)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 99_999_999_999, jitter: 0.5) == nil)
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil, jitter: 1) == 1)
    }

    @Test("An error's localizedDescription is its description, as an app shows it")
    func localizedDescription() {
        let error: any Error = PushRelayError(code: .notAMember, message: "You are not a member", status: 403)
        #expect(error.localizedDescription == "HTTP 403 not_a_member: You are not a member")
    }

    @Test(
        "429 and 5xx may pass later; 501, 505 and other 4xx would not",
        arguments: [
            (429, true), (500, true), (502, true), (503, true), (504, true), (599, true), (501, false),
            (505, false), (400, false), (401, false), (403, false), (404, false), (409, false), (413, false),
        ]
    )
    func retryableStatus(status: Int, retryable: Bool) {
        #expect(RelayTransport.mayPassLater(status: status) == retryable)
    }

    @Test(
        "Retry-After is delay-seconds or an IMF-fixdate; anything else is ignored",
        arguments: [
            ("0", 0), ("1", 1), (" 120 ", 120), ("Sun, 06 Nov 1994 08:49:47 GMT", 10),
            ("Sun, 06 Nov 1994 08:49:27 GMT", 0), ("-1", nil), ("1.5", nil), ("soon", nil), ("", nil),
        ] as [(String, Double?)]
    )
    func retryAfter(value: String, expected: Double?) {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.seconds(value, now: now) == expected)
    }

    @Test("Paths go below the base URL's own path, each id one percent-encoded segment")
    func callURL() throws {
        let call = RelayCall(method: "PUT", path: ["v1", "rooms", "a/b c?ü", "members", "alice"])
        let base = try #require(URL(string: "https://push.example.com/relay/"))
        #expect(
            try call.url(baseURL: base).absoluteString
                == "https://push.example.com/relay/v1/rooms/a%2Fb%20c%3F%C3%BC/members/alice"
        )
        let bare = try #require(URL(string: "http://127.0.0.1:8080"))
        #expect(
            try call.url(baseURL: bare).absoluteString
                == "http://127.0.0.1:8080/v1/rooms/a%2Fb%20c%3F%C3%BC/members/alice"
        )
        #expect(throws: PushRelayError.self) { try call.url(baseURL: URL(fileURLWithPath: "/tmp")) }
        // An empty id is said as such, not sent for the relay's 404 of a path it does not have.
        let empty = RelayCall(method: "PUT", path: ["v1", "rooms", "", "members", "alice"])
        let error = #expect(throws: PushRelayError.self) { try empty.url(baseURL: base) }
        #expect(error?.code == .emptyId)
    }

    @Test("Each attempt carries the user credential, the app and the call's Idempotency-Key")
    func requestHeaders() throws {
        var call = try RelayCall(method: "POST", path: ["v1", "webhooks", "did-send-message"], json: ["text": "a/b"])
        call.idempotencyKey = "k-1"
        let request = try call.request(
            baseURL: try #require(URL(string: "https://push.example.com")),
            appId: "chat",
            bearer: "token-1",
            timeout: 7
        )
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")
        #expect(request.value(forHTTPHeaderField: "X-PushRelay-App") == "chat")
        #expect(request.value(forHTTPHeaderField: "Idempotency-Key") == "k-1")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.timeoutInterval == 7)
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"text":"a/b"}"#)
    }
}

/// The receipt as the relay answers it: from a notification it made, and from an app with a Ditto stream.
@Suite("PushRelayClient receipts")
struct MessageReceiptTests {
    @Test("A 202 of the relay decodes with its id and source relay; a Ditto app's with source ditto and no id")
    func decoding() throws {
        let relay = try JSONDecoder().decode(
            MessageReceipt.self,
            from: Data(#"{"notificationId":"0f8e5b3c-2f7a-4c1e-9d3b-6a1f2e4d5c6b","devices":2}"#.utf8)
        )
        #expect(relay == MessageReceipt(notificationId: "0f8e5b3c-2f7a-4c1e-9d3b-6a1f2e4d5c6b", devices: 2))
        #expect(relay.source == .relay)
        let ditto = try JSONDecoder().decode(MessageReceipt.self, from: Data(#"{"devices":0,"source":"ditto"}"#.utf8))
        #expect(ditto.notificationId == nil)
        #expect(ditto.devices == 0)
        #expect(ditto.source == .ditto)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MessageReceipt.self, from: Data(#"{"source":"ditto"}"#.utf8))
        }
    }
}
