import APNsMock
import Foundation
import RelayCore
import RelayOutbox
import RelayPostgres
import RelayServer
import RelayTestSupport
import Testing

/// Issue 23: what an operator scrapes answers when the database does not, names every app, and starts at zero.
@Suite struct OperationsMetricsTests {
    /// `/metrics` and `/readyz` answer from state while the PostgreSQL server is frozen (SIGSTOP, as a frozen
    /// host looks): `pushrelay_storage_up` goes 0 and `/readyz` 503, the relay stops showing itself the outbox
    /// reporter once its gauge lease ends (so an alert on no reporter fires through an outage), then all come
    /// back once it goes on.
    @Test(.timeLimit(.minutes(5))) func scrapesAnswerWhileThePostgreSQLServerIsFrozen() async throws {
        let cluster = try await PostgresCluster.dedicated()
        let url = try await cluster.newDatabaseURL() + "&connect_timeout=2"
        try await withRelayTestBed(appCount: 1, script: MockScript(), configure: { $0.storage.postgres.url = url }) {
            bed in
            let testRelay = bed.testRelay(store: .configured(statementTimeout: 2))
            var frozen: FrozenServer?
            defer { frozen?.resume() }
            try await testRelay.run {
                let relay = try testRelay.relay
                do {
                    let admin = try #require(relay.adminPort)
                    let up = try await Self.scrape(admin) { $0["pushrelay_storage_up"] == 1 }
                    #expect(up["pushrelay_outbox_pending{app=\"app0\"}"] == 0)

                    frozen = try FrozenServer(dataDirectory: cluster.dataDirectory)
                    let down = try await Self.scrape(admin) { $0["pushrelay_storage_up"] == 0 }
                    #expect(down["pushrelay_storage_up"] == 0)
                    // The figures last read stay while the gauge lease lasts (storage_up says they are not
                    // fresh), then the relay steps down: it holds the lease no longer.
                    let stepped = try await Self.scrape(admin) { $0["pushrelay_outbox_reporter"] == 0 }
                    #expect(stepped["pushrelay_outbox_pending{app=\"app0\"}"] == nil)
                    let unready = try await Self.get(admin, "/readyz")
                    #expect(unready.status == 503, "\(unready.text)")
                    #expect(try Self.checks(unready)["storage"]?.hasPrefix("unavailable") == true, "\(unready.text)")
                    #expect(try await Self.get(relay.port, "/readyz").status == 503)
                    #expect(try await Self.get(relay.port, "/healthz").status == 200)

                    frozen?.resume()
                    let back = try await Self.scrape(admin, waiting: .seconds(90)) { $0["pushrelay_storage_up"] == 1 }
                    #expect(back["pushrelay_storage_up"] == 1)
                    let reporting = try await Self.scrape(admin) { $0["pushrelay_outbox_reporter"] == 1 }
                    #expect(reporting["pushrelay_outbox_pending{app=\"app0\"}"] == 0)
                    let ready = try await Self.get(admin, "/readyz")
                    #expect(ready.status == 200, "\(ready.text)")
                } catch {
                    // The relay's shutdown waits on the database: let it go on first.
                    frozen?.resume()
                    throw error
                }
            }
        }
    }

    /// Before any push every configured app has its series, at zero, and no label takes a value from outside.
    @Test func everyConfiguredAppsSeriesStartAtZero() async throws {
        try await withRelayAndMock(appCount: 2, configure: DittoEventsTests.withDitto()) { relay in
            let samples = try await relay.metrics()
            for app in ["app0", "app1"] {
                for platform in ["ios", "android"] {
                    let labels = "app=\"\(app)\",platform=\"\(platform)\""
                    for outcome in ["sent", "retry", "failed", "retired", "unlinked"] {
                        let name = "pushrelay_notifications_total{\(labels),outcome=\"\(outcome)\",reason=\"none\"}"
                        #expect(samples[name] == 0, "\(name)")
                    }
                    #expect(samples["pushrelay_push_duration_seconds_count{\(labels)}"] == 0)
                    #expect(samples["pushrelay_push_duration_seconds_bucket{\(labels),le=\"+Inf\"}"] == 0)
                    #expect(samples["pushrelay_accepted_to_answered_seconds_count{\(labels)}"] == 0)
                    #expect(samples["pushrelay_wake_decisions_total{\(labels),decision=\"wake\"}"] == 0)
                }
                for environment in ["sandbox", "production"] {
                    let name =
                        "pushrelay_provider_paused{app=\"\(app)\",platform=\"ios\",environment=\"\(environment)\"}"
                    #expect(samples[name] == 0, "\(name)")
                }
                #expect(
                    samples["pushrelay_provider_paused{app=\"\(app)\",platform=\"android\",environment=\"none\"}"] == 0
                )
                #expect(samples["pushrelay_webhooks_total{app=\"\(app)\",event=\"did_send_message\"}"] == 0)
                for gauge in ["pending", "due", "leased", "oldest_pending_age_seconds"] {
                    #expect(samples["pushrelay_outbox_\(gauge){app=\"\(app)\"}"] == 0, "\(gauge)")
                }
            }
            // Only app0 has apps[].ditto.
            #expect(
                samples["pushrelay_ditto_events_total{app=\"app0\",collection=\"messages\",outcome=\"notified\"}"] == 0
            )
            #expect(samples["pushrelay_ditto_requeries_total{app=\"app0\"}"] == 0)
            #expect(!samples.keys.contains { $0.hasPrefix("pushrelay_ditto_events_total{app=\"app1\"") })
            #expect(samples["pushrelay_rate_limited_total{limit=\"webhooks\"}"] == 0)
            // The routes a message arrives by, with the answers that lose it (PushRelayMessagesRefused).
            for route in ["/v1/webhooks/did-send-message", "/v1/webhooks/did-send-image-message", "/v1/ditto/events"] {
                for status in ["500", "503"] {
                    let name = "pushrelay_http_requests_total{route=\"\(route)\",method=\"POST\",status=\"\(status)\"}"
                    #expect(samples[name] == 0, "\(name)")
                }
            }
            #expect(samples["pushrelay_feedback_total{outcome=\"delivered\"}"] == 0)
            #expect(samples["pushrelay_storage_up"] == 1)
            #expect(samples["pushrelay_outbox_reporter"] == 1)
            let buildInfo = samples.filter { $0.key.hasPrefix("pushrelay_build_info{version=\"\(BuildInfo.version)\"") }
            #expect(buildInfo.count == 1 && buildInfo.values.first == 1)

            // Each family has one set of label names.
            let text = try await relay.adminCall("/metrics").text
            let expected: [String: Set<String>] = [
                "pushrelay_notifications_total": ["app", "platform", "outcome", "reason"],
                "pushrelay_push_duration_seconds": ["app", "platform"],
                "pushrelay_accepted_to_answered_seconds": ["app", "platform"],
                "pushrelay_provider_paused": ["app", "platform", "environment"],
                "pushrelay_webhooks_total": ["app", "event"],
                "pushrelay_outbox_pending": ["app"], "pushrelay_outbox_due": ["app"],
                "pushrelay_outbox_leased": ["app"], "pushrelay_outbox_oldest_pending_age_seconds": ["app"],
                "pushrelay_devices": ["state"], "pushrelay_storage_up": [], "pushrelay_outbox_reporter": [],
                "pushrelay_build_info": ["version", "libcurl"], "pushrelay_feedback_pending": [],
                "pushrelay_ditto_events_total": ["app", "collection", "outcome"],
            ]
            let found = Self.labelNames(text)
            for (family, names) in expected { #expect(found[family] == [names], "\(family): \(found[family] ?? [])") }
            // Every family is described.
            for family in found.keys { #expect(text.contains("# TYPE \(family) "), "\(family)") }
        }
    }

    /// The seam other parts report through: a check set in ``HealthChecks`` shows on the admin listener's
    /// `/readyz` only and leaves the relay ready; `pushrelay_provider_paused` follows its setter.
    @Test func reportedChecksAndThePausedGaugeShowWhereAnOperatorLooks() async throws {
        try await withRelayAndMock { relay in
            let running = try relay.relay
            running.healthChecks.set("provider:app0:ios:production", "paused (InvalidProviderToken)")
            running.metrics.setProviderPaused(true, app: "app0", platform: .ios, scope: "production")
            let admin = try await relay.adminCall("/readyz")
            #expect(admin.status == 200, "\(admin.text)")
            #expect(try Self.checks(admin)["provider:app0:ios:production"] == "paused (InvalidProviderToken)")
            let api = try await relay.call("GET", "/readyz", key: nil)
            #expect(api.status == 200 && !api.text.contains("provider"), "\(api.text)")
            let samples = try await relay.metrics()
            #expect(samples["pushrelay_provider_paused{app=\"app0\",platform=\"ios\",environment=\"production\"}"] == 1)
            #expect(samples["pushrelay_provider_paused{app=\"app0\",platform=\"ios\",environment=\"sandbox\"}"] == 0)
            running.healthChecks.remove("provider:app0:ios:production")
            #expect(try Self.checks(try await relay.adminCall("/readyz"))["provider:app0:ios:production"] == nil)
        }
    }

    /// Of several relays on one database one reports the store's figures, so `sum()` over relays is right;
    /// when it stops, another takes over.
    @Test(.timeLimit(.minutes(5))) func oneRelayOfSeveralReportsTheStoresFigures() async throws {
        try await withPostgresRelays { relays in
            // Leases of 6 s: a busy machine's refreshes (one every interval and the time a refresh takes)
            // renew them in time, so one relay at a time reports.
            let a = try await relays.start("relay-a", gaugeInterval: .seconds(2))
            let b = try await relays.start("relay-b", gaugeInterval: .seconds(2))
            // Whichever relay takes the store's lease first reports; wait until one does.
            let deadline = ContinuousClock.now + .seconds(60)
            var fromA: [String: Double] = [:]
            var fromB: [String: Double] = [:]
            repeat {
                fromA = try await Self.scrape(try #require(a.adminPort)) { _ in true }
                fromB = try await Self.scrape(try #require(b.adminPort)) { _ in true }
                if fromA["pushrelay_outbox_reporter"] == 1 || fromB["pushrelay_outbox_reporter"] == 1 { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            let (reporter, other, reporting, quiet) =
                fromA["pushrelay_outbox_reporter"] == 1 ? (a, b, fromA, fromB) : (b, a, fromB, fromA)
            #expect(reporting["pushrelay_outbox_reporter"] == 1 && quiet["pushrelay_outbox_reporter"] == 0)
            #expect(reporting["pushrelay_outbox_pending{app=\"app0\"}"] == 0)
            #expect(
                !quiet.keys.contains { $0.hasPrefix("pushrelay_outbox_pending") || $0.hasPrefix("pushrelay_devices") }
            )

            await relays.stop(reporter)
            let taken = try await Self.scrape(try #require(other.adminPort)) { $0["pushrelay_outbox_reporter"] == 1 }
            #expect(taken["pushrelay_outbox_reporter"] == 1)
            #expect(taken["pushrelay_outbox_pending{app=\"app0\"}"] == 0)
        }
    }

    /// `GET path` on loopback `port`, which must answer within 10 s.
    static func get(_ port: Int, _ path: String) async throws -> APIResponse {
        try await TestRelay.get(port: port, path: path, within: .seconds(10))
    }

    /// `/metrics` of the admin listener on `port`, scraped every 100 ms until `condition` holds or `waiting`
    /// passes; every scrape must answer within 10 s.
    static func scrape(
        _ port: Int,
        waiting: Duration = .seconds(60),
        until condition: ([String: Double]) -> Bool
    ) async throws -> [String: Double] {
        let deadline = ContinuousClock.now + waiting
        while true {
            let response = try await get(port, "/metrics")
            try #require(response.status == 200, "metrics: \(response.status)")
            let samples = try metricSamples(response.text)
            if condition(samples) || ContinuousClock.now >= deadline { return samples }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func checks(_ response: APIResponse) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return object?["checks"] as? [String: String] ?? [:]
    }

    /// Each metric family's sets of label names (without `le`), histogram series under the family's name.
    static func labelNames(_ text: String) -> [String: Set<Set<String>>] {
        var found: [String: Set<Set<String>>] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let series = line[..<(line.lastIndex(of: " ") ?? line.endIndex)]
            let brace = series.firstIndex(of: "{") ?? series.endIndex
            var family = String(series[..<brace])
            for suffix in ["_bucket", "_sum", "_count"] where family.hasSuffix(suffix) {
                let base = String(family.dropLast(suffix.count))
                if text.contains("# TYPE \(base) histogram") { family = base }
            }
            var names = Set<String>()
            if brace < series.endIndex {
                for pair in series[series.index(after: brace)...].dropLast().split(separator: ",") {
                    if let equals = pair.firstIndex(of: "=") { names.insert(String(pair[..<equals])) }
                }
            }
            names.remove("le")
            found[family, default: []].insert(names)
        }
        return found
    }
}
