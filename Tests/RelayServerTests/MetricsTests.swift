import APNsMock
import Foundation
import RelayAPNs
import RelayCore
import RelayOutbox
import RelayServer
import RelayTestSupport
import Synchronization
import Testing

/// Issue 4: `/metrics` counts what happened (docs/operations.md, docs/metrics.md).
@Suite struct MetricsTests {
    /// What `relay-bench fanout` waits on: every outcome counts once, whatever it was; other counters do not.
    @Test func attemptsDecidedCountsEveryOutcome() {
        let metrics = RelayMetrics(appIds: ["app0"], reasons: APNsTransport.reasons)
        #expect(metrics.attemptsDecided == 0)
        metrics.recordOutcome("sent", reason: "none", app: "app0", platform: .ios)
        metrics.recordOutcome("retry", reason: "ServiceUnavailable", app: "app0", platform: .ios)
        metrics.recordOutcome("sent", reason: "none", app: "app0", platform: .ios)
        metrics.recordWebhook("did_send_message", app: "app0")
        #expect(metrics.attemptsDecided == 3)
        let lines = metrics.render().split(separator: "\n")
        #expect(
            lines.contains(
                "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"sent\",reason=\"none\"} 2"
            )
        )
        #expect(
            lines.contains(
                "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"retry\",reason=\"ServiceUnavailable\"} 1"
            )
        )
        #expect(lines.filter { $0.hasPrefix("# TYPE pushrelay_notifications_total") }.count == 1)
    }

    /// What `relay-bench fanout` waits with: woken by the outcome that reaches the count, not before.
    @Test(.timeLimit(.minutes(1))) func aWaitForDecidedAttemptsEndsAtItsCount() async throws {
        let metrics = RelayMetrics()
        metrics.recordOutcome("sent", reason: "none", app: "app0", platform: .ios)
        let ended = Mutex(false)
        let waiter = Task {
            await metrics.waitUntilAttemptsDecided(3)
            ended.withLock { $0 = true }
        }
        metrics.recordOutcome("retry", reason: "ServiceUnavailable", app: "app0", platform: .ios)
        try await Task.sleep(for: .milliseconds(50))  // time for a wait that ended too early to show it
        #expect(!ended.withLock { $0 })
        metrics.recordOutcome("sent", reason: "none", app: "app0", platform: .ios)
        await waiter.value
        #expect(ended.withLock { $0 } && metrics.attemptsDecided == 3)
        // Already reached: returns at once.
        await metrics.waitUntilAttemptsDecided(2)
    }

    @Test(.timeLimit(.minutes(1))) func cancellingAWaitForDecidedAttemptsEndsIt() async {
        let metrics = RelayMetrics()
        let waiter = Task { await metrics.waitUntilAttemptsDecided(1) }
        waiter.cancel()
        await waiter.value
        #expect(metrics.attemptsDecided == 0)
    }

    /// The process's own figures, under the names Prometheus client libraries give them.
    @Test func theProcessFiguresAreScraped() async throws {
        try await withRelayAndMock { relay in
            let text = try await relay.adminCall("/metrics").text
            var values: [String: Double] = [:]
            for line in text.split(separator: "\n") where line.hasPrefix("process_") {
                let parts = line.split(separator: " ")
                if parts.count == 2 { values[String(parts[0])] = Double(parts[1]) }
            }
            #expect((values["process_resident_memory_bytes"] ?? 0) > 1_000_000, "\(values)")
            #expect(
                (values["process_virtual_memory_bytes"] ?? 0) >= values["process_resident_memory_bytes"] ?? .infinity
            )
            #expect((values["process_open_fds"] ?? 0) >= 3 && values["process_max_fds"].map { $0 >= 64 } == true)
            #expect((values["process_cpu_seconds_total"] ?? -1) >= 0)
            // This test process started it: within the last day, not in the future.
            let started = try #require(values["process_start_time_seconds"])
            let now = Date().timeIntervalSince1970
            #expect(started <= now + 1 && started > now - 86_400, "\(started) against \(now)")
            #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
        }
    }

    @Test func metricsCountOutcomesByReasonLatencyDevicesAndRequestsByRoute() async throws {
        let fine = [randomToken(), randomToken()], gone = randomToken(), dead = randomToken()
        let script = MockScript(devices: [
            .init(token: gone, status: 410, reason: "Unregistered"),
            .init(token: dead, status: 503, reason: "ServiceUnavailable"),
        ])
        try await withRelayAndMock(script: script) { relay in
            let room = "room-metrics"
            for (index, token) in (fine + [gone, dead]).enumerated() {
                try await relay.register(token, user: "u\(index)", rooms: [room])
            }
            // The store's figures are read in the background (every 500 ms in the harness).
            let before = try await relay.metrics { $0["pushrelay_devices{state=\"live\"}"] == 4 }
            #expect(before["pushrelay_push_duration_seconds_count{app=\"app0\",platform=\"ios\"}"] == 0)
            // Counters start at zero for every configured app.
            #expect(
                before["pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"sent\",reason=\"none\"}"]
                    == 0
            )
            #expect(before["pushrelay_webhooks_total{app=\"app0\",event=\"did_send_message\"}"] == 0)
            #expect(before["pushrelay_devices{state=\"retired\"}"] == 0)
            #expect(before["pushrelay_storage_up"] == 1)
            #expect(before["pushrelay_outbox_reporter"] == 1)

            let answer = try await relay.webhook([
                "roomId": room, "senderId": "s", "text": "m", "messageId": "metrics-1",
            ])
            let view = try await relay.settled(answer.notificationId)
            #expect(view.counts.sent == 2 && view.counts.retired == 1 && view.counts.failed == 1)
            let refused = try await relay.call("POST", "/v1/devices", json: ["token": "zz", "userId": "u"])
            #expect(refused.status == 400)
            let missing = try await relay.call("GET", "/no/such/path")
            #expect(missing.status == 404)

            // A read of the store's figures after the last result was recorded.
            let after = try await relay.metrics {
                $0["pushrelay_devices{state=\"retired\"}"] == 1 && $0["pushrelay_outbox_pending{app=\"app0\"}"] == 0
            }
            // Three attempts for the dead token (maxAttempts 3): two retries, then failed.
            #expect(
                after["pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"sent\",reason=\"none\"}"]
                    == 2
            )
            #expect(
                after[
                    "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"retired\",reason=\"Unregistered\"}"
                ] == 1
            )
            #expect(
                after[
                    "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"retry\",reason=\"ServiceUnavailable\"}"
                ] == 2
            )
            #expect(
                after[
                    "pushrelay_notifications_total{app=\"app0\",platform=\"ios\",outcome=\"failed\",reason=\"ServiceUnavailable\"}"
                ] == 1
            )
            #expect(after["pushrelay_webhooks_total{app=\"app0\",event=\"did_send_message\"}"] == 1)
            // Every APNs answer is one latency observation of its app and platform.
            #expect(relay.mock.answeredCount == 6)
            let ios = "app=\"app0\",platform=\"ios\""
            #expect(after["pushrelay_push_duration_seconds_count{\(ios)}"] == 6)
            #expect(after["pushrelay_push_duration_seconds_bucket{\(ios),le=\"+Inf\"}"] == 6)
            #expect((after["pushrelay_push_duration_seconds_sum{\(ios)}"] ?? 0) > 0)
            #expect(after["pushrelay_push_duration_seconds_count{app=\"app0\",platform=\"android\"}"] == 0)
            // Four deliveries ended by an answer (two sent, one retired, one failed after its retries).
            #expect(after["pushrelay_accepted_to_answered_seconds_count{\(ios)}"] == 4)
            #expect(after["pushrelay_devices{state=\"live\"}"] == 3)
            #expect(after["pushrelay_outbox_pending{app=\"app0\"}"] == 0)
            #expect(after["pushrelay_outbox_due{app=\"app0\"}"] == 0)
            #expect(after["pushrelay_outbox_leased{app=\"app0\"}"] == 0)
            #expect(after["pushrelay_outbox_oldest_pending_age_seconds{app=\"app0\"}"] == 0)

            let http = "pushrelay_http_requests_total"
            #expect(after["\(http){route=\"/v1/devices\",method=\"POST\",status=\"201\"}"] == 4)
            #expect(after["\(http){route=\"/v1/devices\",method=\"POST\",status=\"400\"}"] == 1)
            #expect(after["\(http){route=\"/v1/webhooks/did-send-message\",method=\"POST\",status=\"202\"}"] == 1)
            #expect(
                (after["\(http){route=\"/v1/notifications/{notificationId}\",method=\"GET\",status=\"200\"}"] ?? 0) >= 1
            )
            // Admin scrapes are not API requests.
            #expect(after.keys.filter { $0.contains("route=\"/metrics\"") }.isEmpty)
            #expect(after["\(http){route=\"unmatched\",method=\"GET\",status=\"404\"}"] == 1)
            // No path (which can hold a device token) becomes a label.
            let text = try await relay.adminCall("/metrics").text
            for token in fine + [gone, dead] { #expect(!text.contains(token)) }
            #expect(!text.contains("no/such/path"))
        }
    }
}

extension RelayHarness {
    /// `GET /metrics` on the admin listener, asked again every 100 ms for up to 60 s until `condition` holds
    /// (figures read from the store in the background lag behind).
    func metrics(until condition: ([String: Double]) -> Bool) async throws -> [String: Double] {
        let deadline = ContinuousClock.now + .seconds(60)
        var samples = try await metrics()
        while !condition(samples), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            samples = try await metrics()
        }
        return samples
    }

    /// `GET /metrics` on the admin listener as sample name with labels -> value, e.g.
    /// `pushrelay_devices{state="live"}`.
    func metrics() async throws -> [String: Double] {
        let response = try await adminCall("/metrics")
        try #require(response.status == 200, "metrics: \(response.status)")
        return try metricSamples(response.text)
    }
}

/// Exposition text as sample name with labels -> value, e.g. `pushrelay_devices{state="live"}`.
func metricSamples(_ text: String) throws -> [String: Double] {
    var samples: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
            throw TestFailure(description: "not a sample line: \(line)")
        }
        samples[String(line[..<space])] = value
    }
    return samples
}
