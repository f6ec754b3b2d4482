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
        let devices = URL(string: "http://127.0.0.1:\(port)/v1/users/u/devices")!
        let (_, refused) = try await URLSession.shared.data(from: devices)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)

        let lines = try Self.objects(relay.stderr)
        for line in lines {
            let ts = try #require(line["ts"] as? String, "\(line)")
            #expect(ts.hasSuffix("Z"), "\(ts)")
            // Every line names the relay's instance: the store's, the lifecycle's (`stopping`) too.
            #expect(line["relay.instance"] as? String == "local", "\(line)")
        }
        #expect(lines.contains { $0["msg"] as? String == "stopping" }, "\(relay.stderr)")
        let listening = try #require(lines.first { $0["msg"] as? String == "relay listening" }, "\(relay.stderr)")
        #expect(listening["http.port"] as? Int == port, "\(listening)")
        #expect(listening["http.connection_limit"] is Int, "\(listening)")
        let opened = try #require(lines.first { $0["msg"] as? String == "opened SQLite store" }, "\(relay.stderr)")
        #expect(opened["store.schema_version"] is Int && opened["store.migrations_applied"] is Int, "\(opened)")
        // A probe's success is a `debug` line, not written at `info`; the refusal is.
        let requests = lines.filter { $0["msg"] as? String == "request" }
        let request = try #require(requests.first, "\(relay.stderr)")
        #expect(requests.count == 1, "\(requests)")
        #expect(request["http.status"] as? Int == 401, "\(request)")
        // A number either way: 2.0 milliseconds is written `2`, which reads back as an integer.
        #expect(request["duration_ms"] is Double || request["duration_ms"] is Int, "\(request)")
        #expect(request["http.route"] as? String == "/v1/users/{userId}/devices", "\(request)")
    }

    /// A start that fails once the instance is known (here the port is taken) names it in its last line too.
    @Test func aFailedStartsLastLineNamesTheInstance() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try directory.serve()
        let port = try await first.listeningPort()
        let other = try TemporaryDirectory()
        defer { other.remove() }
        let second = try other.serve(port: port, arguments: ["--admin-port", "0"])
        #expect(try await second.exitStatus().status == 1)
        let last = try #require(try Self.objects(second.stderr).last, "\(second.stderr)")
        #expect(last["msg"] as? String == "cannot start" && last["relay.instance"] as? String == "local", "\(last)")
        first.signal(SIGTERM)
        #expect(try await first.exitStatus().status == 0)
    }

    /// A development file the data folder cannot take (here a folder stands at its name) ends the start with
    /// the file and the reason, not a framework's error dump.
    @Test func aDevelopmentFileThatCannotBeWrittenIsNamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = directory.url.appendingPathComponent("dev-api-key").path
        try FileManager.default.createDirectory(atPath: key, withIntermediateDirectories: false)
        let relay = try directory.serve()
        #expect(try await relay.exitStatus().status == 1)
        let last = try #require(try Self.objects(relay.stderr).last, "\(relay.stderr)")
        #expect(last["msg"] as? String == "cannot start", "\(last)")
        #expect(last["error"] as? String == "cannot write \(key): Is a directory", "\(last)")
    }

    /// On PostgreSQL an instance id left empty is made at start, at random: it is made once, and every line
    /// (the storage's, the relay's, the lifecycle's) names the same.
    @Test func everyLineOfARelayOnPostgreSQLNamesOneInstance() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let relay = try directory.serve(["PUSH_RELAY_STORAGE_POSTGRES_URL": url])
        _ = try await relay.listeningPort()
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)
        let lines = try Self.objects(relay.stderr)
        let named = Set(lines.map { $0["relay.instance"] as? String ?? "none" })
        #expect(named.count == 1 && !named.contains("none") && !named.contains("local"), "\(named)")
        #expect(lines.contains { $0["msg"] as? String == "stopping" }, "\(relay.stderr)")
    }
}
