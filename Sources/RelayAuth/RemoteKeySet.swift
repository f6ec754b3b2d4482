import Foundation
import RelayCore
import RelayCrypto
import RelayCurl

/// The keys of a JWKS URL: fetched at first use and kept; fetched again for a `kid` they lack, or once
/// they are ``maxAge`` old, at most once per ``refetchInterval``. While none were ever fetched, a failed
/// fetch is tried again after ``retryInterval``; requests in between get 503 at once instead of each
/// waiting on a host that is down. Callers that need a fetch while one runs share it.
actor RemoteKeySet {
    /// The least time between two fetches once keys are held.
    static let refetchInterval: Duration = .seconds(60)
    /// The least time between two fetches while no keys are held.
    static let retryInterval: Duration = .seconds(10)
    /// Keys held this long are fetched again at the next use (a key the issuer withdrew stops counting).
    static let maxAge: Duration = .seconds(3600)
    /// A document longer than this many BYTES is refused.
    static let maxDocumentBytes = 262_144
    /// How long a fetch may take, connect included.
    static let timeout: Duration = .seconds(5)

    let url: String
    private let time: any TimeSource
    private let logger: Logger
    private var keys: [PublicKey]?
    private var fetchedAt: Duration = .zero
    private var attemptedAt: Duration?
    private var fetching: Task<Result<[PublicKey], UserAuthError>, Never>?

    init(url: String, time: any TimeSource, logger: Logger) {
        self.url = url
        self.time = time
        self.logger = logger
    }

    /// The keys to check a token whose header has `kid` with.
    /// - Throws: ``UserAuthError`` 503 `auth_unavailable` while no keys could be fetched yet.
    func keys(forKid kid: String?) async throws(UserAuthError) -> [PublicKey] {
        let now = time.monotonic
        guard let keys else {
            if let attemptedAt, fetching == nil, now - attemptedAt < Self.retryInterval {
                throw Self.unavailable(retryAfter: Self.retryInterval - (now - attemptedAt))
            }
            return try await refresh().get()
        }
        let lacksKid = kid.map { kid in !keys.contains { $0.keyId == kid } } ?? false
        let mayFetch = attemptedAt.map { now - $0 >= Self.refetchInterval } ?? true
        if (lacksKid || now - fetchedAt >= Self.maxAge) && mayFetch, case .success(let fresh) = await refresh() {
            return fresh
        }
        return keys
    }

    /// Fetches the document, or waits for the fetch under way; keeps what it got.
    private func refresh() async -> Result<[PublicKey], UserAuthError> {
        if let fetching { return await fetching.value }
        attemptedAt = time.monotonic
        let task = Task { [url, logger] in await Self.fetch(url, logger: logger) }
        fetching = task
        let result = await task.value
        fetching = nil
        switch result {
        case .success(let fresh):
            keys = fresh
            fetchedAt = time.monotonic
        case .failure(let error):
            if let keys {
                logger.warning(
                    "keeping the JWKS keys fetched before",
                    ["keys": keys.count, "error": error.message]
                )
            }
        }
        return result
    }

    private static func fetch(_ url: String, logger: Logger) async -> Result<[PublicKey], UserAuthError> {
        func failure(_ reason: String) -> Result<[PublicKey], UserAuthError> {
            logger.warning(
                "cannot fetch the JWKS document",
                ["jwks.url": Configuration.redactedURL(url), "error": reason]
            )
            return .failure(unavailable(retryAfter: retryInterval))
        }
        let answer: (status: Int, body: Data)
        do {
            answer = try await OutboundHTTP.get(
                url: url,
                headers: [("Accept", "application/jwk-set+json, application/json")],
                timeout: timeout,
                keepingBodyUpTo: maxDocumentBytes + 1
            )
        } catch {
            return failure("no answer: \(error.message)")
        }
        guard answer.status == 200 else { return failure("HTTP \(answer.status)") }
        guard answer.body.count <= maxDocumentBytes else { return failure("longer than \(maxDocumentBytes) bytes") }
        let set: JSONWebKeySet
        do { set = try JSONWebKeySet(json: answer.body) } catch { return failure(error.message) }
        let (keys, skipped) = set.publicKeys()
        for reason in skipped {
            logger.warning("JWKS key passed over", ["jwks.url": Configuration.redactedURL(url), "error": reason])
        }
        guard !keys.isEmpty else { return failure("it holds no ES256 or RS256 key") }
        logger.info("fetched the JWKS document", ["jwks.url": Configuration.redactedURL(url), "keys": keys.count])
        return .success(keys)
    }

    private static func unavailable(retryAfter: Duration) -> UserAuthError {
        .unavailable(
            "the app's JWKS document cannot be fetched now",
            retryAfterSeconds: Int(retryAfter.timeInterval.rounded(.up))
        )
    }
}
