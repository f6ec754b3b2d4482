import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One call to the relay, the same on every attempt: method, path, JSON body and `Idempotency-Key`.
struct RelayCall: Sendable {
    /// RFC 3986's unreserved characters: every other byte of a path segment is percent-encoded, so an id
    /// holding `/`, `?` or `%` stays one segment.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    var method: String
    /// Path segments below the base URL, not yet percent-encoded (`["v1", "rooms", roomId, …]`).
    var path: [String]
    var body: Data?
    /// Sent as `Idempotency-Key` on every attempt (webhooks).
    var idempotencyKey: String?
    /// Whether the relay's own 404 (`not_found` in its error body) also ends the call well: a device already
    /// removed. Another 404 (a proxy's page) does not; a base path that reaches the relay but none of its
    /// routes is the relay's `not_found` too.
    var notFoundIsDone = false

    init(method: String, path: [String]) {
        self.method = method
        self.path = path
    }

    /// A call with `json` encoded as its body (raw UTF-8, `/` not escaped).
    init(method: String, path: [String], json: some Encodable) throws {
        self.init(method: method, path: path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        body = try encoder.encode(json)
    }

    /// The URL of this call below `baseURL` (whose own path is kept as a prefix).
    /// - Throws: ``PushRelayError`` `.emptyId` for an empty segment (an id passed empty), `.invalidBaseURL`.
    func url(baseURL: URL) throws -> URL {
        guard !path.contains(where: \.isEmpty) else {
            throw PushRelayError(code: .emptyId, message: "a room or user id of the call is empty")
        }
        let invalid = PushRelayError(code: .invalidBaseURL, message: "the base URL \(baseURL) is not an http(s) URL")
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            ["http", "https"].contains(components.scheme?.lowercased()), components.host?.isEmpty == false
        else { throw invalid }
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let segments = path.map { $0.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? "" }
        components.percentEncodedPath = prefix + "/" + segments.joined(separator: "/")
        components.percentEncodedQuery = nil
        guard let url = components.url else { throw invalid }
        return url
    }

    /// The request of one attempt, authenticated as the user of `appId` with `bearer`.
    func request(baseURL: URL, appId: String, bearer: String, timeout: TimeInterval) throws -> URLRequest {
        var request = URLRequest(url: try url(baseURL: baseURL), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        request.setValue(appId, forHTTPHeaderField: "X-PushRelay-App")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
        return request
    }
}
