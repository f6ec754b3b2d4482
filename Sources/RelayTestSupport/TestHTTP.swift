import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request to a server under test on loopback `port` (URLSession): `Authorization: Bearer <bearer>`
/// when given, a JSON body from `json` (an object) or `body` (bytes), then `headers`, which win.
/// - Throws: URLSession's error when the server does not answer (30 s per request).
public func exchange(
    port: Int,
    _ method: String,
    _ path: String,
    bearer: String?,
    json: Any?,
    body: Data?,
    headers: [String: String]
) async throws -> (status: Int, body: Data, headers: [String: String]) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    request.timeoutInterval = 30
    if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
    if let json {
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    if let body {
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await URLSession.shared.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw TestFailure(description: "not HTTP") }
    var fields: [String: String] = [:]
    for case (let name as String, let value as String) in http.allHeaderFields { fields[name.lowercased()] = value }
    return (http.statusCode, data, fields)
}

/// Polls `condition` every 20 ms until it holds; fails after `timeout` (a generous bound, not a timing).
/// - Throws: ``TestFailure`` naming `what` when the time is up, or what `condition` throws.
public func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(60),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
