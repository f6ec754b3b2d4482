import Foundation
import RelayCore
import Synchronization

/// What every connection of a ``MockFCMServer`` shares besides the script and the record: the service
/// accounts and the access tokens issued to them. The tokens sit behind a Mutex.
final class MockFCMCore: Sendable {
    let configuration: MockFCMConfiguration
    /// The accounts by `client_email`.
    let accounts: [String: MockFCMAccount]
    private let state = Mutex(State())

    /// An access token the token endpoint gave out.
    struct IssuedToken {
        var account: MockFCMAccount
        var expiresAt: Date
    }

    private struct State {
        var tokens: [String: IssuedToken] = [:]
        var tokensIssued = 0
    }

    init(configuration: MockFCMConfiguration) {
        self.configuration = configuration
        accounts = Dictionary(configuration.accounts.map { ($0.clientEmail, $0) }) { _, last in last }
    }

    /// Gives out a new access token for `account`, valid for the configured lifetime from now.
    func issueToken(for account: MockFCMAccount, value: String) {
        let now = configuration.timeSource.now
        state.withLock { state in
            state.tokens = state.tokens.filter { $0.value.expiresAt > now }
            state.tokens[value] = IssuedToken(
                account: account,
                expiresAt: now + configuration.accessTokenLifetime.timeInterval
            )
            state.tokensIssued += 1
        }
    }

    /// The account an access token was issued to, when it was issued here and has not expired.
    func account(forToken value: Substring) -> MockFCMAccount? {
        let now = configuration.timeSource.now
        return state.withLock { state in
            guard let issued = state.tokens[String(value)], issued.expiresAt > now else { return nil }
            return issued.account
        }
    }

    /// Forgets every access token given out: each is refused from now on (401), as after a revocation.
    func revokeTokens() { state.withLock { $0.tokens.removeAll() } }

    var tokensIssued: Int { state.withLock { $0.tokensIssued } }
}
