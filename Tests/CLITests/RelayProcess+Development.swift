import Foundation
import RelayTestSupport
import Testing

extension RelayProcess {
    /// Starts `serve` on its defaults with its database in `data`; returns it once listening, with the URL of
    /// its in-process mock `mock` (`FCM`, `Web Push`: the `mock.url` of its `in-process mock … started` line).
    static func development(
        data: URL,
        in directory: URL,
        name: String,
        mock: String
    ) async throws -> (process: RelayProcess, mockURL: String) {
        let process = try RelayProcess(
            ["serve", "--port", "0"],
            environment: ["PUSH_RELAY_STORAGE_SQLITE_PATH": data.appendingPathComponent("db.sqlite").path],
            outputIn: directory,
            name: name
        )
        _ = try await process.listeningPort()
        let lines = process.stderr.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
        }
        let started = lines.first { $0["msg"] == "in-process mock \(mock) started" }
        return (process, try #require(started?["mock.url"], "no mock \(mock) log line in:\n\(process.stderr)"))
    }
}
