import RelayAuth
import RelayCore
import RelayCrypto
import RelayHTTP

/// The configured apps, and who a request's credential names: an app's backend (its API key) or one of its
/// users (a user credential with `X-PushRelay-App`).
public struct AppDirectory: Sendable {
    /// The header a user credential names its app with.
    public static let appHeader = "x-pushrelay-app"

    public let apps: [Configuration.App]
    /// The user-credential check of each app that has `userAuth`, by app id.
    let userAuthenticators: [String: any UserAuthenticator]

    public init(apps: [Configuration.App], userAuthenticators: [String: any UserAuthenticator] = [:]) {
        self.apps = apps
        self.userAuthenticators = userAuthenticators
    }

    public func app(id: String) -> Configuration.App? { apps.first { $0.id == id } }

    /// The caller of a `/v1` request: with `X-PushRelay-App: <app id>`, the user whose credential
    /// `Authorization: Bearer <token>` carries, as that app's `userAuth` verifies it; without, the app whose
    /// API key it carries (every key is compared in constant time against every configured hash).
    /// - Throws: ``HTTPError`` 401 `unauthorized` when the header is missing or malformed or the key matches
    ///   no app, 401 `unknown_app` or `user_auth_not_configured` for an app that takes no user credentials,
    ///   and the 401 or 503 (with `Retry-After`) the app's check answers for a user credential.
    public func authenticate(_ request: HTTPRequest) async throws(HTTPError) -> Caller {
        let bearer = try Self.bearer(request)
        guard let appId = request.headers[Self.appHeader] else {
            var selected: Configuration.App?
            for app in apps where APIKey.matches(bearer, anyOf: app.apiKeySHA256) { selected = selected ?? app }
            guard let selected else { throw .unauthorized(message: "The API key is not valid") }
            return .backend(selected)
        }
        guard let app = app(id: appId) else {
            throw Self.refusal(code: "unknown_app", message: "X-PushRelay-App names no app of this relay")
        }
        guard let authenticator = userAuthenticators[app.id] else {
            throw Self.refusal(
                code: "user_auth_not_configured",
                message: "app '\(app.id)' takes no user credentials (it has no userAuth); use its API key"
            )
        }
        do {
            return .user(app, userId: try await authenticator.userId(forBearer: bearer))
        } catch {
            guard error.status == 503 else { throw Self.refusal(code: error.code, message: error.message) }
            throw HTTPError(
                status: 503,
                code: error.code,
                message: error.message,
                headers: [("Retry-After", "\(error.retryAfterSeconds ?? 1)")]
            )
        }
    }

    /// The token of `Authorization: Bearer <token>`.
    private static func bearer(_ request: HTTPRequest) throws(HTTPError) -> String {
        guard let header = request.headers["authorization"] else {
            throw .unauthorized(message: "Authorization: Bearer <api key or user credential> is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized(message: "Authorization must be 'Bearer <token>'")
        }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// A 401 with its own code and `WWW-Authenticate: Bearer` (RFC 6750 §3).
    private static func refusal(code: String, message: String) -> HTTPError {
        HTTPError(status: 401, code: code, message: message, headers: [("WWW-Authenticate", "Bearer")])
    }
}
