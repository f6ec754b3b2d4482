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
        let exchange = try HeldExchange()
        let patient = Task { try await exchange.tokens.current(by: .now + .seconds(60)) }
        let early = await #expect(throws: TransportError.self) {
            try await exchange.tokens.current(by: .now + .milliseconds(200))
        }
        #expect(early?.code == .timeout)
        try await exchange.answer()
        #expect(try await patient.value.value == "ya29.test")
        #expect(exchange.tokens.minted == 1)
    }

    /// A send cancelled while it waits stops waiting at once; the exchange goes on for the others.
    @Test(.timeLimit(.minutes(1))) func aCancelledWaitEndsAtOnce() async throws {
        let exchange = try HeldExchange()
        let cancelled = Task { try await exchange.tokens.current(by: .now + .seconds(60)) }
        try await exchange.started()
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await exchange.answer()
        #expect(try await exchange.tokens.current(by: .now + .seconds(60)).value == "ya29.test")
        #expect(exchange.tokens.minted == 1)
    }
}

/// Access tokens whose endpoint answers only when the test lets it.
private final class HeldExchange: Sendable {
    let tokens: AccessTokens
    private let gate: Gate

    /// The exchange's wait for the test, once it has been asked for.
    private final class Gate: Sendable {
        let held = Mutex<CheckedContinuation<Void, Never>?>(nil)
    }

    init() throws {
        let account = FCMHarness.account
        let gate = Gate()
        self.gate = gate
        tokens = AccessTokens(
            account: account,
            key: try RS256Key(privateKeyPEM: account.privateKey),
            margin: .seconds(300),
            timeSource: SystemTimeSource(),
            logger: .disabled()
        ) { _, _ in
            await withCheckedContinuation { continuation in gate.held.withLock { $0 = continuation } }
            return (200, Data(#"{"access_token":"ya29.test","expires_in":3600,"token_type":"Bearer"}"#.utf8))
        }
    }

    /// Returns once the exchange has been asked for.
    func started() async throws {
        while gate.held.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Lets the exchange answer, once it has been asked for.
    func answer() async throws {
        try await started()
        gate.held.withLock { $0.take() }?.resume()
    }
}
