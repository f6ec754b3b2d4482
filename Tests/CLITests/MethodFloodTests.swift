import Foundation
import RelayTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The issue's flood against `push-relay serve`: thousands of made-up methods, each long and new, leave the
/// relay's memory, its `/metrics` and its log about where they were.
@Suite struct MethodFloodTests {
    /// Sends `GET`-less requests with `count` distinct made-up methods of about `length` bytes, one a
    /// connection (the 501 closes it), and returns the status lines read. Blocking calls on a Dispatch thread.
    static func flood(port: Int, from first: Int, count: Int, length: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var statuses: [String] = []
                for index in first..<(first + count) {
                    let method = "M\(index)X" + String(repeating: "Y", count: max(0, length - 8))
                    statuses.append(exchange(port: port, "\(method) /v1/devices HTTP/1.1\r\nHost: t\r\n\r\n"))
                }
                continuation.resume(returning: statuses)
            }
        }
    }

    /// One request on a fresh connection; its first line, read until the server closes (10 s at most). One
    /// that is not a 501 says how the exchange ended and after how long.
    static func exchange(port: Int, _ request: String) -> String {
        let started = ContinuousClock.now
        let outcome = rawExchangeOutcome(port: port, request)
        let line = outcome.received.components(separatedBy: "\r\n").first ?? ""
        if line.hasPrefix("HTTP/1.1 501") { return line }
        let failure = outcome.failure ?? "closed or timed out"
        return "'\(line)' (\(failure), after \(ContinuousClock.now - started), \(outcome.received.utf8.count) bytes)"
    }

    /// The resident memory of process `pid` in KiB (`VmRSS` of /proc/PID/status).
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    static func body(_ url: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: url)!)
        return String(decoding: data, as: UTF8.self)
    }

    @Test(.timeLimit(.minutes(5))) func thousandsOfMadeUpMethodsLeaveMemoryMetricsAndLogFlat() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try RelayProcess(
            ["serve", "--port", "0", "--log-level", "info"],
            environment: [
                "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("db.sqlite").path
            ],
            outputIn: directory.url,
            name: "serve"
        )
        let port = try await relay.listeningPort()
        let admin = try #require(URL(string: try await relay.line(startingWith: "PushRelay admin on "))?.port)
        let metricsURL = "http://127.0.0.1:\(admin)/metrics"
        func logBytes() -> Int { relay.stderr.utf8.count }

        // A first round warms the allocator and puts the `other` series in place.
        let length = 4000
        let warm = await Self.flood(port: port, from: 0, count: 300, length: length)
        #expect(warm.allSatisfy { $0.hasPrefix("HTTP/1.1 501") }, "\(Set(warm))")
        // A first scrape puts its own series in place.
        _ = try await Self.body(metricsURL)
        let metricsBefore = try await Self.body(metricsURL)
        let memoryBefore = try Self.residentKiB(relay.process.pid)
        let logBefore = logBytes()
        let started = ContinuousClock.now

        let statuses = await Self.flood(port: port, from: 300, count: 3000, length: length)
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        #expect(statuses.allSatisfy { $0.hasPrefix("HTTP/1.1 501") }, "\(Set(statuses))")
        let metricsAfter = try await Self.body(metricsURL)
        let memoryAfter = try Self.residentKiB(relay.process.pid)
        let logAfter = logBytes()

        // The same series, only the counts moved: 3,000 methods of 4 KB each would be 12 MB of labels.
        func series(_ text: String) -> [String] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0[..<$0.lastIndex(of: " ")!]) }
        }
        #expect(series(metricsAfter) == series(metricsBefore))
        #expect(metricsAfter.utf8.count - metricsBefore.utf8.count < 64)
        #expect(metricsAfter.contains(#"method="other",status="501"} 3300"#), "\(metricsAfter)")
        #expect(!metricsAfter.contains("YYYY"))
        // Memory: what 3,000 requests' transient buffers leave behind, far below the 12 MB the labels and
        // log lines would hold.
        #expect(memoryAfter - memoryBefore < 6 * 1024, "RSS \(memoryBefore) KiB -> \(memoryAfter) KiB")
        // The log: at most the refusal budget a second (and a `not logged` line each), no line long.
        let logLines = relay.stderr.split(separator: "\n")
        #expect(logLines.allSatisfy { $0.utf8.count < 1024 })
        let added = logAfter - logBefore
        #expect(added < (Int(seconds.rounded(.up)) + 2) * 21 * 1024, "log grew \(added) bytes in \(seconds) s")
        print(
            "method flood: 3000 requests in \(seconds) s; RSS \(memoryBefore) -> \(memoryAfter) KiB;"
                + " /metrics \(metricsBefore.utf8.count) -> \(metricsAfter.utf8.count) bytes;"
                + " log \(logBefore) -> \(logAfter) bytes"
        )
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().status == 0)
        // What was left out is counted in the log, at the latest when the relay stops.
        let counted = relay.stderr.split(separator: "\n").filter { $0.contains("refused requests not logged") }
            .compactMap { line -> Int? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["count"] as? Int
            }
        let logged = relay.stderr.split(separator: "\n").filter { $0.contains("\"http.status\":501") }.count
        #expect(counted.reduce(0, +) + logged == 3300, "\(counted) not logged, \(logged) logged")
    }
}
