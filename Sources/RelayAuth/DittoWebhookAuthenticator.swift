import Foundation
import RelayCore
import RelayCrypto
import RelayCurl

/// Turns a bearer token into a user id by asking the app's Ditto auth webhook, as Ditto does for "online
/// with authentication": a POST of `{"token","provider"}` JSON, answered `{"authenticate": true, "userID":
/// ..., "expirationSeconds": ...}`.
///
/// Answers are kept by the token's SHA-256 in a bounded cache (``maxCachedTokens``): an acceptance until
/// the earlier of its `expirationSeconds` and `maxCacheSeconds`, a refusal (`authenticate: false`, or a 4xx
/// other than 408 and 429) for `refusalCacheSeconds`. A webhook that cannot be reached, takes longer than
/// `timeoutMilliseconds`, answers 408, 429, 5xx or anything unusable gives 503 `auth_unavailable` and is
/// not cached. Requests for a token being asked about share the one call; at most ``maxConcurrentCalls``
/// calls run at once, shared among client ranges by a ``FairCallGate``: a check that finds them all taken
/// waits for one (at most `timeoutMilliseconds`, at most ``waitersPerRange`` of a range at once), and a
/// freed call goes to the waiting range holding the fewest, so a range with none gets one of the next calls
/// to end however many other ranges flood. The relay's ``CredentialCheckLimiter`` lets one range hold only
/// part of them.
public actor DittoWebhookAuthenticator: UserAuthenticator {
    /// Tokens whose answers are kept at most.
    public static let maxCachedTokens = 100_000
    /// Webhook calls under way at most; a request needing one more waits for one.
    public static let maxConcurrentCalls = 64
    /// Checks of one client range waiting for a call at most; one more gets 503.
    public static let waitersPerRange = 2
    /// Checks waiting for a call at most, all ranges together; one more gets 503.
    public static let maxWaiters = 1024
    /// What a 503 tells the client to wait, in SECONDS.
    public static let retryAfterSeconds = 5
    /// The longest answer read, in BYTES.
    static let maxAnswerBytes = 65_536

    /// A call's outcome and how long it may be reused.
    private struct Outcome: Sendable {
        var result: Result<String, UserAuthError>
        var keep: Duration?
    }

    private let settings: Configuration.UserAuth.DittoAuthWebhook
    private let time: any TimeSource
    private let logger: Logger
    private var cache: ExpiringCache<TokenDigest, Result<String, UserAuthError>>
    private var calls: [TokenDigest: Task<Outcome, Never>] = [:]
    private let gate: FairCallGate<IPNetwork>
    /// The `no auth webhook call came free` lines: one a second, whatever a flood of checks asks.
    private let busyLines = LogBudget(limit: 1, interval: .seconds(1), lines: "auth webhook busy lines")
    /// Where ``busyLines`` counts its seconds from: the budget reads instants, the checks read
    /// `time.monotonic`, so a manual clock paces its lines too.
    private let budgetOrigin = ContinuousClock.now

    public init(
        settings: Configuration.UserAuth.DittoAuthWebhook,
        time: any TimeSource = SystemTimeSource(),
        logger: Logger
    ) {
        self.settings = settings
        self.time = time
        self.logger = logger
        cache = ExpiringCache(capacity: Self.maxCachedTokens)
        gate = FairCallGate(
            slots: Self.maxConcurrentCalls,
            waitersPerKey: Self.waitersPerRange,
            maxWaiters: Self.maxWaiters,
            maxWait: .milliseconds(settings.timeoutMilliseconds),
            time: time
        )
    }

    /// The user `token` was accepted for, while that answer is cached.
    public func cachedUserId(forBearer token: String) async -> String? {
        guard token.utf8.count <= JWTVerifier.maxTokenBytes else { return nil }
        return try? cache.value(for: TokenDigest(token), now: time.monotonic)?.get()
    }

    /// - Throws: as ``userId(forBearer:from:)``, all such checks counted as one client range.
    public func userId(forBearer token: String) async throws(UserAuthError) -> String {
        try await userId(forBearer: token, from: Self.anyRange)
    }

    /// - Parameter range: the client's address range, whose share of the webhook's calls a new call takes.
    /// - Throws: ``UserAuthError`` 401 `token_too_large` or `credential_refused`, 503 `auth_unavailable`
    ///   with Retry-After (also when no webhook call came free in time for the range).
    public func userId(forBearer token: String, from range: IPNetwork) async throws(UserAuthError) -> String {
        guard token.utf8.count <= JWTVerifier.maxTokenBytes else {
            throw UserAuthError(JWTError(.tokenTooLarge, "the token is longer than \(JWTVerifier.maxTokenBytes) bytes"))
        }
        let digest = TokenDigest(token)
        if let known = cache.value(for: digest, now: time.monotonic) { return try known.get() }
        if let call = calls[digest] { return try await call.value.result.get() }
        guard await gate.acquire(range) else {
            if busyLines.admit(reporting: logger, at: budgetOrigin + time.monotonic) {
                logger.warning("no auth webhook call came free", ["calls": gate.busy, "waiting": gate.waiters])
            }
            throw .unavailable("too many credentials are being checked at once", retryAfterSeconds: 1)
        }
        // Another request may have asked about the token, or had its answer, while this one waited.
        if let known = cache.value(for: digest, now: time.monotonic) {
            gate.release(range)
            return try known.get()
        }
        if let call = calls[digest] {
            gate.release(range)
            return try await call.value.result.get()
        }
        let call = Task { [settings, logger] in await Self.ask(token, settings: settings, logger: logger) }
        calls[digest] = call
        let outcome = await call.value
        calls[digest] = nil
        gate.release(range)
        if let keep = outcome.keep {
            let now = time.monotonic
            cache.insert(outcome.result, for: digest, until: now + keep, now: now)
        }
        return try outcome.result.get()
    }

    /// The range of checks that name none.
    private static let anyRange = IPNetwork("::/0")!

    /// One webhook call and what its answer means.
    private static func ask(
        _ token: String,
        settings: Configuration.UserAuth.DittoAuthWebhook,
        logger: Logger
    ) async -> Outcome {
        let logger = logger.with(TokenDigest(token).logMetadata)
        func unavailable(_ reason: String) -> Outcome {
            logger.warning("the auth webhook cannot check credentials", ["error": reason])
            return Outcome(
                result: .failure(
                    .unavailable("the app's auth webhook cannot be asked now", retryAfterSeconds: retryAfterSeconds)
                ),
                keep: nil
            )
        }
        func refused(_ reason: String) -> Outcome {
            logger.debug("the auth webhook refused a credential", ["error": reason])
            return Outcome(
                result: .failure(.refused("the app's auth webhook refused the token (\(reason))")),
                keep: .seconds(settings.refusalCacheSeconds)
            )
        }
        let timeout = Duration.milliseconds(settings.timeoutMilliseconds)
        let answer: (status: Int, body: Data)
        do {
            let request = try JSONEncoder().encode(["token": token, "provider": settings.provider])
            answer = try await OutboundHTTP.post(
                url: settings.url,
                body: request,
                headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                timeout: timeout,
                connectTimeout: timeout,
                keepingBodyUpTo: maxAnswerBytes
            )
        } catch let error as TransportError {
            return unavailable("no answer (\(error.code)): \(error.message)")
        } catch {
            return unavailable("\(error)")
        }
        switch answer.status {
        case 200..<300: break
        case 408, 429: return unavailable("HTTP \(answer.status)")
        case 400..<500: return refused("HTTP \(answer.status)")
        default: return unavailable("HTTP \(answer.status)")
        }
        guard let decision = try? JSONDecoder().decode(DittoWebhookAnswer.self, from: answer.body) else {
            return unavailable("the answer is not JSON with a boolean 'authenticate'")
        }
        guard decision.authenticate else { return refused("authenticate: false") }
        guard let userId = decision.userID, ChatMessage.idProblem(userId) == nil else {
            return unavailable("it accepted the token without a usable 'userID'")
        }
        let maximum = Duration.seconds(settings.maxCacheSeconds)
        guard let seconds = decision.expirationSeconds else { return Outcome(result: .success(userId), keep: maximum) }
        guard seconds.isFinite, seconds > 0 else { return refused("expirationSeconds \(seconds): already expired") }
        return Outcome(result: .success(userId), keep: min(.milliseconds(Int64(min(seconds, 1e9) * 1000)), maximum))
    }
}
