import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import Synchronization
import Testing

@testable import RelayFCM

/// The access tokens' exchange, shared by the sends that wait for it, against each send's own deadline.
@Suite struct AccessTokensTests {
    /// A send that waits for an exchange started after it began (the renewal after a 401) stops waiting at
    /// its deadline; the exchange goes on, and a send with a later deadline gets its token.
    @Test(.timeLimit(.minutes(1))) func aWaitEndsAtItsDeadlineAndTheExchangeGoesOn() async throws {
        let account = FCMHarness.account
        let answer = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let tokens = AccessTokens(
            account: account,
            key: try RS256Key(privateKeyPEM: account.privateKey),
            margin: .seconds(300),
            timeSource: SystemTimeSource(),
            logger: .disabled()
        ) { _, _ in
            // The endpoint answers once the test lets it.
            await withCheckedContinuation { continuation in answer.withLock { $0 = continuation } }
            return (200, Data(#"{"access_token":"ya29.test","expires_in":3600,"token_type":"Bearer"}"#.utf8))
        }
        let patient = Task { try await tokens.current(by: .now + .seconds(60)) }
        let early = await #expect(throws: TransportError.self) {
            try await tokens.current(by: .now + .milliseconds(200))
        }
        #expect(early?.code == .timeout)
        while answer.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(10)) }
        answer.withLock { $0.take() }?.resume()
        #expect(try await patient.value.value == "ya29.test")
        #expect(tokens.minted == 1)
    }
}
