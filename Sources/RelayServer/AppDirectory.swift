import RelayCore
import RelayCrypto
import RelayHTTP

/// The configured apps, and which one a request's API key selects.
public struct AppDirectory: Sendable {
    public let apps: [Configuration.App]

    public init(apps: [Configuration.App]) { self.apps = apps }

    public func app(id: String) -> Configuration.App? { apps.first { $0.id == id } }

    /// The app whose key the request carries as `Authorization: Bearer <api key>`.
    /// Every key is compared in constant time against every configured hash.
    /// - Throws: ``HTTPError`` 401 `unauthorized` when the header is missing, malformed or matches no app.
    public func authenticate(_ request: HTTPRequest) throws(HTTPError) -> Configuration.App {
        guard let header = request.headers["authorization"] else {
            throw .unauthorized(message: "Authorization: Bearer <api key> is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized(message: "Authorization must be 'Bearer <api key>'")
        }
        let key = parts[1].trimmingCharacters(in: .whitespaces)
        var selected: Configuration.App?
        for app in apps where APIKey.matches(key, anyOf: app.apiKeySHA256) { selected = selected ?? app }
        guard let selected else { throw .unauthorized(message: "The API key is not valid") }
        return selected
    }
}
