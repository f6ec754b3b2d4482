import RelayAuth
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayOutbox

/// The configured apps, and who a request's credential names: an app's backend (its API key) or one of its
/// users (a user credential with `X-PushRelay-App`).
public struct AppDirectory: Sendable {
    /// The header a user credential names its app with.
    public static let appHeader = "x-pushrelay-app"
    /// The one 401 code of a user credential refused before it proved to be the app's.
    public static let invalidCredential = "invalid_credential"

    public let apps: [Configuration.App]
    /// The user-credential check of each app that has `userAuth`, by app id.
    let userAuthenticators: [String: any UserAuthenticator]
    /// Counts each client's user-credential checks that no cache answered, and its keys that matched no app.
    let limiter: CredentialCheckLimiter
    /// Where a refusal by ``limiter`` is counted; nil counts nothing.
    let metrics: RelayMetrics?
    let logger: Logger

    public init(
        apps: [Configuration.App],
        userAuthenticators: [String: any UserAuthenticator] = [:],
        limiter: CredentialCheckLimiter = CredentialCheckLimiter(settings: .init()),
        metrics: RelayMetrics? = nil,
        logger: Logger = .disabled()
    ) {
        self.apps = apps
        self.userAuthenticators = userAuthenticators
        self.limiter = limiter
        self.metrics = metrics
        self.logger = logger
    }

    public func app(id: String) -> Configuration.App? { apps.first { $0.id == id } }

    /// The caller of a `/v1` request: with `X-PushRelay-App: <app id>`, the user whose credential
    /// `Authorization: Bearer <token>` carries, as that app's `userAuth` verifies it; without, the app whose
    /// API key it carries (every key is compared in constant time against every configured hash).
    ///
    /// A user credential that the app's cache accepted before passes at once. Any other is first admitted
    /// by ``limiter`` for the request's client address (429 `rate_limited` with `Retry-After` when its
    /// address or range has too many checks in flight or failed), then checked; a refusal counts against
    /// the client (a 503 too: a webhook that times out must not let junk through uncounted), a success
    /// does not.
    /// - Throws: ``HTTPError`` 401 `unauthorized` when the header is missing or malformed or the API key
    ///   matches no app (429 `rate_limited` instead once the client is over its failures:
    ///   ``refusedKey(client:message:)``); for a user credential, 429 `rate_limited`, and what
    ///   ``userRefusal(_:)`` makes of a refusal (an unknown app and an app without `userAuth` included).
    public func authenticate(_ request: HTTPRequest) async throws(HTTPError) -> Caller {
        if let checked = request.headerNote as? Caller { return checked }
        let found: Credential
        if let noted = request.headerNote as? Credential {
            found = noted
        } else {
            found = try credential(request.headers, client: request.clientAddress)
        }
        switch found {
        case .backend(let app): return .backend(app)
        case .user(let bearer, let app, let authenticator):
            return try await user(bearer, app: app, authenticator: authenticator, client: request.clientAddress)
        }
    }

    /// What ``authenticate(_:)`` decides before a body is read, so that no stranger's body is held: from the
    /// headers alone, a missing or malformed credential, `X-PushRelay-App` sent twice, an API key that
    /// matches no app, and a user credential for no app of this relay, for an app without `userAuth` or that
    /// is an API key (each counted against the client, ``refusedKey(client:message:)``); then a user
    /// credential for an app with `userAuth` is checked (``HeaderVerdict/settle(_:)``: its app's JWKS or auth
    /// webhook may be asked) while the body waits unread. What passes goes on with the request
    /// (``HTTPRequest/headerNote``: the backend's credential, or the user as checked), so that
    /// ``authenticate(_:)`` does not read it again.
    public func verdictBeforeBody(_ headers: HTTPHeaders, client: String) -> HeaderVerdict {
        .checking { () throws(HTTPError) in
            let found = try credential(headers, client: client)
            guard case .user(let bearer, let app, let authenticator) = found else {
                return .proceed(maxBodyBytes: nil, note: found)
            }
            return .settle {
                do throws(HTTPError) {
                    let caller = try await self.user(bearer, app: app, authenticator: authenticator, client: client)
                    return .proceed(maxBodyBytes: nil, note: caller)
                } catch {
                    return .refuse(error)
                }
            }
        }
    }

    /// The credential's kind: an app's API key, or a user credential for the app `X-PushRelay-App` names and
    /// its check.
    private enum Credential: Sendable {
        case backend(Configuration.App)
        case user(bearer: String, app: Configuration.App, authenticator: any UserAuthenticator)
    }

    /// Reads the credential (see ``authenticate(_:)``), refusing what the headers alone decide
    /// (``verdictBeforeBody(_:client:)``).
    private func credential(_ headers: HTTPHeaders, client: String) throws(HTTPError) -> Credential {
        let bearer = try Self.bearer(headers, naming: "api key or user credential")
        let appIds = headers.trimmedValues(for: Self.appHeader)
        guard appIds.count <= 1 else {
            throw .badRequest(code: "conflicting_headers", message: "X-PushRelay-App must be sent once")
        }
        var keyOwner: Configuration.App?
        for app in apps where APIKey.matches(bearer, anyOf: app.apiKeySHA256) { keyOwner = keyOwner ?? app }
        guard let appId = appIds.first else {
            guard let keyOwner else {
                throw refusedKey(
                    client: client,
                    message: "The API key is not valid (a user credential needs X-PushRelay-App: <app id>)"
                )
            }
            return .backend(keyOwner)
        }
        // An API key never leaves the relay: it is not passed to an app's JWKS or auth webhook as a token.
        guard keyOwner == nil else {
            throw refusedUser(client: client, "an API key is not a user credential; send it without X-PushRelay-App")
        }
        guard let app = app(id: appId) else {
            throw refusedUser(client: client, "X-PushRelay-App names no app of this relay")
        }
        guard let authenticator = userAuthenticators[app.id] else {
            throw refusedUser(client: client, "app '\(app.id)' takes no user credentials (it has no userAuth)")
        }
        return .user(bearer: bearer, app: app, authenticator: authenticator)
    }

    /// The answer to a user credential no app of this relay could take (``userRefusal(_:)``'s
    /// `invalid_credential`), counted against `client` as ``refusedKey(client:message:)`` counts a key.
    private func refusedUser(client: String, _ reason: String) -> HTTPError {
        countedFailure(client: client, userRefusal(.refused(reason)))
    }

    /// The user a user credential names (see ``authenticate(_:)``): a login the cache accepted at once; a
    /// check made locally (``RelayAuth/UserAuthenticator/checksLocally``) made, its failure counted by
    /// ``limiter``; any other check through ``limiter``.
    private func user(
        _ bearer: String,
        app: Configuration.App,
        authenticator: any UserAuthenticator,
        client: String
    ) async throws(HTTPError)
        -> Caller
    {
        if let userId = await authenticator.cachedUserId(forBearer: bearer) { return .user(app, userId: userId) }
        if authenticator.checksLocally {
            do {
                return .user(
                    app,
                    userId: try await authenticator.userId(forBearer: bearer, from: limiter.range(of: client))
                )
            } catch {
                throw countedFailure(client: client, userRefusal(error))
            }
        }
        let ticket: CredentialCheckLimiter.Ticket
        switch limiter.begin(client: client) {
        case .admitted(let admitted): ticket = admitted
        case .refused(let seconds): throw overCredentialFailures(retryAfter: seconds)
        }
        var failed = true
        defer { limiter.end(ticket, failed: failed) }
        do {
            let userId = try await authenticator.userId(forBearer: bearer, from: limiter.range(of: client))
            failed = false
            return .user(app, userId: userId)
        } catch {
            throw userRefusal(error)
        }
    }

    /// The answer to an API key or ingest secret that matches no app: 401 `unauthorized` with `message`, the
    /// refusal counted against `client` as a failed credential check (``limiter``), so a stranger guessing
    /// keys is slowed as one guessing user credentials is; 429 `rate_limited` once the client's address or
    /// range is over its failures. A key that matches is never counted nor refused by it.
    public func refusedKey(client: String, message: String) -> HTTPError {
        countedFailure(client: client, .unauthorized(message: message))
    }

    /// `refusal`, counted against `client` as a failed credential check (``limiter``); 429 `rate_limited`
    /// instead once the client's address or range is over its failures.
    private func countedFailure(client: String, _ refusal: @autoclosure () -> HTTPError) -> HTTPError {
        switch limiter.begin(client: client) {
        case .admitted(let ticket):
            limiter.end(ticket, failed: true)
            return refusal()
        case .refused(let seconds):
            return overCredentialFailures(retryAfter: seconds)
        }
    }

    /// 429 `rate_limited` for a client over the `credential_failures` limit, counted in the metrics.
    private func overCredentialFailures(retryAfter seconds: Int) -> HTTPError {
        metrics?.recordRateLimited(limit: "credential_failures")
        return .rateLimited(
            "credential_failures",
            "too many credential checks from this address or its range are under way or failed; try again later",
            retryAfter: seconds
        )
    }

    /// What the client is told of a refused user credential, the one rule for all of them: a 503 as it is
    /// (with `Retry-After`); a 401 for a token one of the app's keys verified with its own code and message;
    /// any other 401 (no such app, no `userAuth`, not a token the app's keys signed, the webhook said no)
    /// `invalid_credential` with one message, so a stranger learns neither which apps exist nor why. The
    /// reason goes to the debug log.
    func userRefusal(_ error: UserAuthError) -> HTTPError {
        guard error.status == 401 else {
            return HTTPError(
                status: error.status,
                code: error.code,
                message: error.message,
                headers: [("Retry-After", "\(error.retryAfterSeconds ?? 1)")]
            )
        }
        guard error.signatureVerified else {
            logger.debug("user credential refused", ["error": error.description])
            return Self.refusal(
                code: Self.invalidCredential,
                message: "The credential is not valid for the app X-PushRelay-App names"
            )
        }
        return Self.refusal(code: error.code, message: error.message)
    }

    /// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1, the scheme in any case), without the
    /// white space (SP, HTAB) around it; `what` names the credentials the call takes, for the refusal.
    /// - Throws: ``HTTPError`` 401 `unauthorized` when the header is missing or not a bearer token.
    static func bearer(_ headers: HTTPHeaders, naming what: String) throws(HTTPError) -> String {
        guard let header = headers.trimmedValues(for: "authorization").first else {
            throw .unauthorized(message: "Authorization: Bearer <\(what)> is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized(message: "Authorization must be 'Bearer <token>'")
        }
        return HTTPHeaders.trimmed(parts[1])
    }

    /// A 401 with its own code and `WWW-Authenticate: Bearer` (RFC 6750 §3).
    private static func refusal(code: String, message: String) -> HTTPError {
        HTTPError(status: 401, code: code, message: message, headers: [("WWW-Authenticate", "Bearer")])
    }
}
