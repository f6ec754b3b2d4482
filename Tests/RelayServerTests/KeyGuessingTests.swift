import Foundation
import RelayCore
import Testing

/// API keys and Ditto ingest secrets that match no app count against the client as failed credential
/// checks (`http.credentialFailures`), as user credentials do: a stranger guessing keys is refused with 429
/// once its address is over the limit, while a key that matches is never refused by it.
@Suite struct KeyGuessingTests {
    /// Three failures an address, drained one a minute: a slow run frees no room between the calls.
    static func limited(_ configuration: inout Configuration) {
        configuration.http.credentialFailures.perAddressBurst = 3
        configuration.http.credentialFailures.perAddressPerMinute = 1
        DittoEventsTests.withDitto()(&configuration)
    }

    @Test func guessedKeysAndIngestSecretsAreRefusedPastTheLimitAndARealKeyStillServes() async throws {
        try await withRelayAndMock(configure: Self.limited) { relay in
            var statuses: [Int] = []
            for index in 0..<2 {
                statuses.append(try await relay.call("GET", "/v1/users/alice/devices", key: "guess-\(index)").status)
            }
            let event: [String: Any] = ["txnId": 1, "type": "requeryRequired"]
            let secret = try await relay.call("POST", "/v1/ditto/events", json: event, key: "guessed-secret")
            statuses.append(secret.status)
            let over = try await relay.call("POST", "/v1/ditto/events", json: event, key: "another-guess")
            let keyOver = try await relay.call("GET", "/v1/users/alice/devices", key: "guess-9")
            #expect(statuses == [401, 401, 401])
            #expect(over.status == 429 && over.error?.code == "rate_limited" && over.header("Retry-After") != nil)
            #expect(keyOver.status == 429 && keyOver.error?.code == "rate_limited")
            // The app's own key and ingest secret, from the same address.
            #expect(try await relay.call("GET", "/v1/users/alice/devices").status == 200)
            let fed = try await relay.call("POST", "/v1/ditto/events", json: event, key: DittoEventsTests.secret)
            #expect(fed.status == 200, "\(fed.text)")
        }
    }
}
