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

    private enum Lookup {
        case ready(Token)
        case fetching(Task<Token, any Error>)
    }

    private struct State {
        var current: Token?
        var pending: Task<Token, any Error>?
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
    ///   it did not answer (`.timeout` at `deadline`), `CryptoError` when the assertion cannot be signed.
    func current(by deadline: ContinuousClock.Instant) async throws -> Token {
        let lookup = state.withLock { state -> Lookup in
            if let token = state.current, timeSource.monotonic < token.renewAt { return .ready(token) }
            if let pending = state.pending { return .fetching(pending) }
            let pending = Task { try await self.fetch() }
            state.pending = pending
            return .fetching(pending)
        }
        switch lookup {
        case .ready(let token): return token
        case .fetching(let task): return try await Self.value(of: task, by: deadline)
        }
    }

    /// `task`'s value, or `TransportError` `.timeout` once `deadline` passes first (`CancellationError` once
    /// the caller is cancelled); `task` runs on either way.
    private static func value(
        of task: Task<Token, any Error>,
        by deadline: ContinuousClock.Instant
    ) async throws -> Token {
        let waiter = Mutex<CheckedContinuation<Token, any Error>?>(nil)
        let finish: @Sendable (Result<Token, any Error>) -> Void = { result in
            waiter.withLock { $0.take() }?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.withLock { $0 = continuation }
                // Cancelled before the continuation was there to take: the handler found none.
                if Task.isCancelled { return finish(.failure(CancellationError())) }
                let timer = Task {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    let message = "no FCM access token by the send's deadline"
                    finish(.failure(TransportError(code: .timeout, message: message)))
                }
                Task {
                    do { finish(.success(try await task.value)) } catch { finish(.failure(error)) }
                    timer.cancel()
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
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
