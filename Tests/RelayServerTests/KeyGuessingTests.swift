import Foundation
import RelayCore
import Testing

/// API keys and Ditto ingest secrets that match no app count against the client as failed credential
/// checks (`http.credentialFailures`), as user credentials do: a stranger guessing keys is refused with 429
/// once its address is over the limit, while a key that matches is never refused by it.
@Suite struct KeyGuessingTests {
    /// Three failures an address, drained one a minute (a slow run frees no room between the calls), and
    /// the test as a trusted proxy, so each call names its client in `X-Forwarded-For`.
    static func limited(_ configuration: inout Configuration) {
        configuration.http.credentialFailures.perAddressBurst = 3
        configuration.http.credentialFailures.perAddressPerMinute = 1
        configuration.http.trustedProxies = ["127.0.0.1"]
        DittoEventsTests.withDitto()(&configuration)
    }

    @Test func guessedKeysAndIngestSecretsAreRefusedPastTheLimitAndARealKeyStillServes() async throws {
        try await withRelayAndMock(configure: Self.limited) { relay in
            let guesser = ["X-Forwarded-For": "198.51.100.7"]
            let event: [String: Any] = ["txnId": 1, "type": "requeryRequired"]
            func devices(_ key: String?, from client: [String: String]) async throws -> APIResponse {
                try await relay.call("GET", "/v1/users/alice/devices", key: key, headers: client)
            }
            func feed(_ key: String, from client: [String: String]) async throws -> APIResponse {
                try await relay.call("POST", "/v1/ditto/events", json: event, key: key, headers: client)
            }
            var statuses: [Int] = []
            for index in 0..<2 { statuses.append(try await devices("guess-\(index)", from: guesser).status) }
            statuses.append(try await feed("guessed-secret", from: guesser).status)
            #expect(statuses == [401, 401, 401])
            // Over: the ingest path's header check and the API's, each with Retry-After.
            for over in [try await feed("another-guess", from: guesser), try await devices("guess-9", from: guesser)] {
                #expect(over.status == 429 && over.error?.code == "rate_limited", "\(over.text)")
                #expect(over.header("Retry-After") != nil)
            }
            // Another client (another range too) is not held back by the guesser's failures.
            let other = ["X-Forwarded-For": "203.0.113.9"]
            #expect(try await feed("yet-another-guess", from: other).status == 401)
            // The app's own key and ingest secret, from the guesser's address.
            #expect(try await devices(nil, from: guesser).status == 200)
            let fed = try await feed(DittoEventsTests.secret, from: guesser)
            #expect(fed.status == 200, "\(fed.text)")
        }
    }
}
