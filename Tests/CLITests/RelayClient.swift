import Foundation
import RelayTestSupport

/// A temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(at: url) }

    /// `push-relay serve --port <port>` (0: a free one) and `arguments`, its SQLite file and output here, with
    /// `environment` (a SQLite path given there wins).
    func serve(
        _ environment: [String: String] = [:],
        port: Int = 0,
        arguments: [String] = ["--log-level", "info"]
    ) throws
        -> RelayProcess
    {
        try RelayProcess(
            ["serve", "--port", "\(port)"] + arguments,
            environment: environment.merging(
                ["PUSH_RELAY_STORAGE_SQLITE_PATH": url.appendingPathComponent("db.sqlite").path]
            ) { given, _ in given },
            outputIn: url,
            name: "serve"
        )
    }
}

/// A JSON API client for a relay process on 127.0.0.1.
struct RelayClient {
    var port: Int
    var apiKey: String

    /// Sends one request with `Authorization: Bearer <apiKey>`; returns the status and the body.
    func call(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> (status: Int, body: Data) {
        let answer = try await exchange(port: port, method, path, bearer: apiKey, json: json, body: nil, headers: [:])
        return (answer.status, answer.body)
    }

    /// The answer as a JSON object, requiring `status`.
    func object(
        _ method: String,
        _ path: String,
        json: [String: Any]? = nil,
        status: Set<Int>
    ) async throws
        -> [String: Any]
    {
        let (code, body) = try await call(method, path, json: json)
        guard status.contains(code), let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw TestFailure(
                description: "\(method) \(path): \(code) \(String(decoding: body, as: UTF8.self))"
            )
        }
        return object
    }
}
