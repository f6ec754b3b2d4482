import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import Synchronization

/// The OAuth 2.0 access token of one service account, shared by every send of a client.
///
/// A token is reused until ``FCMClientConfiguration/accessTokenRenewalMargin`` before it expires (measured on
/// the time source's monotonic clock from when it was asked for), and never past half its life. Sends that
/// find no usable token while one is being fetched wait for that exchange instead of starting their own, so
/// a burst of first sends costs one exchange. A token FCM refused (401) is dropped with ``invalidate(_:)``;
/// only the first of many sends refused with the same token causes a new exchange.
final class AccessTokens: Sendable {
    /// One access token and when to stop using it.
    struct Token: Sendable, Equatable {
        var value: String
        /// Monotonic reading after which the token is replaced.
        var renewAt: Duration
    }

    /// Posts the form-encoded assertion to `url` and returns the answer's status and body.
    typealias Exchange = @Sendable (_ url: String, _ body: Data) async throws -> (status: Int, body: Data)

    /// An exchange under way: its task, and the event its end signals (what waits with a deadline await).
    private struct Fetch {
        var task: Task<Token, any Error>
        var done: OneShotEvent
    }

    private enum Lookup {
        case ready(Token)
        case fetching(Fetch)
    }

    private struct State {
        var current: Token?
        var pending: Fetch?
        var minted = 0
    }

    private let account: FCMServiceAccount
    private let key: RS256Key
    private let margin: Duration
    private let timeSource: any TimeSource
    private let logger: Logger
    private let exchange: Exchange
    private let state = Mutex(State())

    init(
        account: FCMServiceAccount,
        key: RS256Key,
        margin: Duration,
        timeSource: any TimeSource,
        logger: Logger,
        exchange: @escaping Exchange
    ) {
        self.account = account
        self.key = key
        self.margin = margin
        self.timeSource = timeSource
        self.logger = logger
        self.exchange = exchange
    }

    /// A usable token: the cached one, the one being fetched, or a new one.
    /// - Parameter deadline: when to stop waiting for an exchange (which goes on for the sends that share it).
    /// - Throws: ``AccessTokenError`` when the endpoint refused or answered nonsense, `TransportError` when
    ///   it did not answer (`.timeout` at `deadline`), `CryptoError` when the assertion cannot be signed,
    ///   `CancellationError` when the calling task is cancelled while it waits.
    func current(by deadline: ContinuousClock.Instant) async throws -> Token {
        let lookup = state.withLock { state -> Lookup in
            if let token = state.current, timeSource.monotonic < token.renewAt { return .ready(token) }
            if let pending = state.pending { return .fetching(pending) }
            let done = OneShotEvent()
            let pending = Fetch(
                task: Task {
                    defer { done.signal() }
                    return try await self.fetch()
                },
                done: done
            )
            state.pending = pending
            return .fetching(pending)
        }
        switch lookup {
        case .ready(let token):
            return token
        case .fetching(let fetch):
            // The exchange goes on for the sends that share it, whoever stops waiting.
            guard await fetch.done.wait(until: deadline) else {
                try Task.checkCancellation()
                throw TransportError(code: .timeout, message: "no FCM access token by the send's deadline")
            }
            return try await fetch.task.value
        }
    }

    /// The cached token while it is usable, without a wait; nil when ``current(by:)`` would fetch or wait.
    var ready: Token? {
        state.withLock { state in
            guard let token = state.current, timeSource.monotonic < token.renewAt else { return nil }
            return token
        }
    }

    /// Drops `token` after FCM refused it, so the next ``current(by:)`` fetches another; a token already
    /// replaced is left alone.
    func invalidate(_ token: Token) {
        state.withLock { state in
            if state.current == token { state.current = nil }
        }
    }

    /// How many tokens were fetched so far.
    var minted: Int { state.withLock { $0.minted } }

    private func fetch() async throws -> Token {
        do {
            let askedAt = timeSource.monotonic
            let assertion = try OAuthAssertion.sign(for: account, key: key, now: timeSource.now)
            let answer = try await exchange(account.tokenURI, assertion.tokenRequestBody)
            let (value, lifetime) = try TokenEndpointAnswer.accessToken(status: answer.status, body: answer.body)
            let token = Token(value: value, renewAt: askedAt + max(lifetime - margin, lifetime / 2))
            let minted = state.withLock { state in
                state.current = token
                state.pending = nil
                state.minted += 1
                return state.minted
            }
            logger.info(
                "got an FCM access token",
                [
                    "fcm.account": account.clientEmail, "fcm.lifetime_seconds": lifetime.components.seconds,
                    "fcm.tokens": minted,
                ]
            )
            return token
        } catch {
            state.withLock { $0.pending = nil }
            logger.warning(
                "FCM access token request failed",
                ["fcm.account": account.clientEmail, "error": "\(error)"]
            )
            throw error
        }
    }
}
