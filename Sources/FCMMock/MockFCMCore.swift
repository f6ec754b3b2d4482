import Foundation
import MockHTTP2
import RelayCore
import Synchronization

/// State shared between the public ``MockFCMServer`` and its event-loop thread: the script with its counters,
/// the access tokens issued, and the record. Every mutable field sits behind a Mutex.
final class MockFCMCore: Sendable {
    let configuration: MockFCMConfiguration
    /// The accounts by `client_email`.
    let accounts: [String: MockFCMAccount]
    /// The answered messages, and the waiters for them.
    let log: RequestLog<RecordedMessage>
    private let state: Mutex<State>

    /// An access token the token endpoint gave out.
    struct IssuedToken {
        var account: MockFCMAccount
        var expiresAt: Date
    }

    private struct State {
        var script: MockFCMScript
        /// Times each device rule (by index) has been applied since the script was set.
        var deviceRuleUses: [Int]
        var tokens: [String: IssuedToken] = [:]
        var tokensIssued = 0
        var acceptedConnections = 0

        init(script: MockFCMScript) {
            self.script = script
            deviceRuleUses = Array(repeating: 0, count: script.devices.count)
        }
    }

    init(configuration: MockFCMConfiguration) {
        self.configuration = configuration
        accounts = Dictionary(configuration.accounts.map { ($0.clientEmail, $0) }) { _, last in last }
        state = Mutex(State(script: configuration.script))
        log = RequestLog(keepInMemory: configuration.recordInMemory, limit: configuration.maxRecordedRequests) {
            waited,
            count,
            total in
            MockFCMError(.timeout, "waited \(waited) for \(count) messages; \(total) answered")
        }
    }

    var script: MockFCMScript {
        get { state.withLock { $0.script } }
        set { state.withLock { $0 = Self.replacingScript($0, with: newValue) } }
    }

    func updateScript(_ body: (inout MockFCMScript) -> Void) {
        state.withLock {
            var script = $0.script
            body(&script)
            $0 = Self.replacingScript($0, with: script)
        }
    }

    private static func replacingScript(_ old: State, with script: MockFCMScript) -> State {
        var new = old
        new.script = script
        new.deviceRuleUses = Array(repeating: 0, count: script.devices.count)
        return new
    }

    /// The scripted rule for a valid message to `token`, consuming one use of it.
    func deviceRule(token: String) -> MockFCMScript.DeviceRule? {
        state.withLock { state in
            for (index, rule) in state.script.devices.enumerated() where rule.token == "*" || rule.token == token {
                if let count = rule.count, state.deviceRuleUses[index] >= count { continue }
                state.deviceRuleUses[index] += 1
                return rule
            }
            return nil
        }
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

    func acceptConnection() { state.withLock { $0.acceptedConnections += 1 } }

    var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
}
