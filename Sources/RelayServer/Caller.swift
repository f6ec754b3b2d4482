import RelayCore
import RelayHTTP

/// Who makes a `/v1` call, decided once per request by ``AppDirectory/authenticate(_:)``: the app's backend
/// (its API key: everything within the app) or one of the app's users (a user credential: only what that
/// user may do). Handlers authorize from it and never authenticate again.
public enum Caller: Sendable {
    case backend(Configuration.App)
    case user(Configuration.App, userId: String)

    /// The app the call is made in; every store call is scoped by its id.
    public var app: Configuration.App {
        switch self {
        case .backend(let app), .user(let app, _): app
        }
    }

    /// The user a user credential names; nil for the backend.
    public var userId: String? {
        if case .user(_, let userId) = self { userId } else { nil }
    }

    /// The idempotency scope of this caller: the backend, or one user of the app.
    var scope: String {
        switch self {
        case .backend: "backend"
        case .user(_, let userId): "user:\(userId)"
        }
    }

    /// Whether the caller may see a thing `owner` has (a device, a notification it sent): the backend sees
    /// everything, a user only its own. What it may not see is answered as if it did not exist (404), so
    /// one user cannot probe another's tokens or notifications.
    func mayRead(ownedBy owner: String) -> Bool {
        guard let userId else { return true }
        return owner.isSameId(userId)
    }

    /// Refuses a user: `what` is for the backend only.
    /// - Throws: ``HTTPError`` 403 `backend_only`.
    func requireBackend(_ what: String) throws(HTTPError) {
        guard case .user = self else { return }
        throw HTTPError(status: 403, code: "backend_only", message: "\(what) needs the app's API key")
    }

    /// The user a call acts for: what `given` names, which a user may omit (it is then the caller) or must
    /// set to itself; the backend must name one.
    /// - Throws: ``HTTPError`` 400 `missing_field` when the backend names none, 403 `forbidden_user` (or
    ///   `refusal`) when a user names another, and what ``Validation/id(_:field:)`` throws.
    func actingUser(_ given: String?, field: String, refusal: String = "forbidden_user") throws(HTTPError) -> String {
        try actingUser(given, field: field, refusal: refusal, omittable: true)
    }

    /// The user a call on a `…/{userId}` path acts for: the path's, a valid id, which a user caller must be.
    /// - Throws: ``HTTPError`` 403 `forbidden_user` when a user names another, and what
    ///   ``Validation/id(_:field:)`` throws.
    func actingUser(inPath parameters: RouteParameters) throws -> String {
        let given = try Validation.id(try parameters.require("userId"), field: "userId")
        return try actingUser(given, field: "userId", refusal: "forbidden_user", omittable: false)
    }

    private func actingUser(
        _ given: String?,
        field: String,
        refusal: String,
        omittable: Bool
    ) throws(HTTPError) -> String {
        switch self {
        case .backend:
            guard let given else { throw .badRequest(code: "missing_field", message: "\(field) is required") }
            return try Validation.id(given, field: field)
        case .user(_, let userId):
            guard let given, !given.isSameId(userId) else { return userId }
            throw HTTPError(
                status: 403,
                code: refusal,
                message: "\(field) must be the signed-in user ('\(userId)')" + (omittable ? " or omitted" : "")
            )
        }
    }
}
