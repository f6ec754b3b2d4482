import Foundation
import Testing

@testable import RelayCore

/// The JSON lines the relay logs: metadata numbers and booleans as JSON numbers and booleans.
@Suite struct LoggerTests {
    /// What a line holds, decoded strictly: a number written as text would not decode as `Int`.
    struct Line: Decodable {
        var ts: String
        var level: String
        var label: String
        var msg: String
        var status: Int
        var durationMs: Double
        var tls: Bool
        var port: Int
        var id: String
        var big: String

        enum CodingKeys: String, CodingKey {
            case ts, level, label, msg, tls, port, big
            case status = "http.status"
            case durationMs = "duration_ms"
            case id = "request.id"
        }
    }

    @Test func aLineIsJSONWithNumbersAsNumbersAndItsTimeInUTC() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).jsonl")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        let logger = Logger(label: "test", handler: JSONLinesHandler(handle))
        let status = 503
        logger.info(
            "request",
            [
                "http.status": status, "duration_ms": 12.5, "tls": true, "port": UInt16(8080),
                "request.id": "r-\(status)", "big": UInt64.max,
            ]
        )
        try handle.close()
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasSuffix("}\n") && text.split(separator: "\n").count == 1)
        let line = try JSONDecoder().decode(Line.self, from: Data(text.utf8))
        #expect(line.status == 503 && line.durationMs == 12.5 && line.tls && line.port == 8080)
        #expect(line.id == "r-503" && line.msg == "request" && line.level == "info" && line.label == "test")
        #expect(line.big == "18446744073709551615", "an integer beyond Int is kept whole, as text")
        #expect(line.ts.hasSuffix("Z"), "\(line.ts)")
        #expect(
            ISO8601DateFormatter().date(
                from: line.ts.replacingOccurrences(of: #"\.\d+"#, with: "", options: .regularExpression)
            ) != nil
        )
    }

    @Test func aMemoryHandlerKeepsTheValuesAndTheirText() {
        let memory = MemoryLogHandler()
        Logger(label: "test", handler: memory).warning("x", ["count": 3, "error": "boom", "ratio": 0.5])
        let entry = memory.entries[0]
        #expect(entry.values == ["count": .int(3), "error": .string("boom"), "ratio": .double(0.5)])
        #expect(entry.metadata == ["count": "3", "error": "boom", "ratio": "0.5"])
    }

    @Test func aValueJSONCannotHoldIsWrittenAsText() throws {
        let line = try Self.written { $0.error("x", ["a": Double.infinity, "b": Double.nan]) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["a"] as? String == "inf" && object["b"] as? String == "nan")
    }

    @Test func keysAreSortedAndSlashesKeptAsTheyAre() throws {
        let line = try Self.written { $0.notice("a/b", ["z": 1, "path": "/v1/devices"]) }
        #expect(line.hasPrefix(#"{"label":"test","level":"notice","msg":"a/b","path":"/v1/devices","ts":"#))
        #expect(line.hasSuffix(#"","z":1}"# + "\n"))
    }

    /// The line `log` writes through a ``JSONLinesHandler`` to a file.
    private static func written(_ log: (Logger) -> Void) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).jsonl")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        log(Logger(label: "test", handler: JSONLinesHandler(handle)))
        try handle.close()
        return try String(contentsOf: file, encoding: .utf8)
    }
}
