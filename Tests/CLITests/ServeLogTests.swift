import Foundation
import RelayTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The log lines of a real `serve`: JSON objects whose numbers are JSON numbers and whose times are UTC.
@Suite struct ServeLogTests {
    /// The JSON objects of `text`'s lines, each required to be one.
    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test func theListeningAndRequestLinesCarryNumbers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try directory.serve()
        let port = try await relay.listeningPort()
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)

        let lines = try Self.objects(relay.stderr)
        for line in lines {
            let ts = try #require(line["ts"] as? String, "\(line)")
            #expect(ts.hasSuffix("Z"), "\(ts)")
        }
        let listening = try #require(lines.first { $0["msg"] as? String == "relay listening" }, "\(relay.stderr)")
        #expect(listening["http.port"] as? Int == port, "\(listening)")
        #expect(listening["http.connection_limit"] is Int, "\(listening)")
        let opened = try #require(lines.first { $0["msg"] as? String == "opened SQLite store" }, "\(relay.stderr)")
        #expect(opened["store.schema_version"] is Int && opened["store.migrations_applied"] is Int, "\(opened)")
        let request = try #require(lines.first { $0["msg"] as? String == "request" }, "\(relay.stderr)")
        #expect(request["http.status"] as? Int == 200, "\(request)")
        // A number either way: 2.0 milliseconds is written `2`, which reads back as an integer.
        #expect(request["duration_ms"] is Double || request["duration_ms"] is Int, "\(request)")
        #expect(request["http.route"] as? String == "/healthz", "\(request)")
    }
}
