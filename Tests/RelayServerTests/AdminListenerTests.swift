import Foundation
import RelayCore
import RelayHTTP
import RelaySQLite
import RelayServer
import RelayStore
import RelayTestSupport
import Testing

/// `http.admin`: metrics and probes on a listener of their own, over real sockets on loopback.
@Suite struct AdminListenerTests {
    @Test func metricsMoveToTheAdminListenerAndTheProbesAreOnBoth() async throws {
        try await withRelayAndMock(configure: { $0.http.admin = .init(enabled: true, port: 0) }) { harness in
            let relay = try harness.relay
            let admin = try #require(relay.adminPort)
            #expect(admin != relay.port && admin > 0)

            let hidden = try await TestRelay.get(port: relay.port, path: "/metrics")
            #expect(hidden.status == 404, "\(hidden.text)")
            #expect(hidden.text.contains("\"code\":\"not_found\""), "\(hidden.text)")

            let metrics = try await TestRelay.get(port: admin, path: "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(metrics.text.contains("pushrelay_outbox_pending"), "\(metrics.text)")
            // The public listener's requests are counted where they are scraped.
            #expect(metrics.text.contains("route=\"unmatched\""), "\(metrics.text)")

            for port in [relay.port, admin] {
                #expect(try await TestRelay.get(port: port, path: "/healthz").status == 200)
                #expect(try await TestRelay.get(port: port, path: "/readyz").status == 200)
            }
            // App ids are the operator's: only the admin listener's /readyz names them.
            #expect(try await TestRelay.get(port: admin, path: "/readyz").text.contains("apns:app0"))
            #expect(!(try await TestRelay.get(port: relay.port, path: "/readyz").text.contains("app0")))
            // Nothing of the API is on the admin listener.
            let api = try await TestRelay.get(port: admin, path: "/v1/dead-tokens")
            #expect(api.status == 404, "\(api.text)")
            #expect(try await TestRelay.get(port: admin, path: "/openapi.json").status == 404)
        }
    }

    /// The API listener's connections are in the admin listener's `/metrics`: the limit in force, and each
    /// reason a connection is closed before its answer from the start at 0; a connection that sends half a
    /// request head counts under `header_deadline` once that deadline closed it.
    @Test func theAPIListenersClosedConnectionsAreCountedByReason() async throws {
        try await withRelayAndMock(configure: { $0.http.headerTimeoutSeconds = 1 }) { harness in
            let relay = try harness.relay
            let admin = try #require(relay.adminPort)
            let closed = "pushrelay_http_connections_closed_total"
            let before = try await TestRelay.get(port: admin, path: "/metrics").text
            #expect(before.contains("# TYPE \(closed) counter"), "\(before)")
            let reasons = [
                "idle", "header_deadline", "body_deadline", "slow_body", "slow_answer", "address_cap", "prefix_cap",
                "shed",
            ]
            for reason in reasons {
                #expect(before.contains("\(closed){reason=\"\(reason)\"} 0\n"), "\(reason)")
            }
            let limit = relay.httpStatistics.connectionLimit
            #expect(limit > 0 && before.contains("pushrelay_http_connection_limit \(limit)\n"))
            let answer = try await harness.rawExchange("GET /healthz HTTP/1.1\r\nHost: relay\r\n")
            #expect(!answer.contains("200"), "\(answer)")
            let after = try await TestRelay.get(port: admin, path: "/metrics").text
            #expect(after.contains("\(closed){reason=\"header_deadline\"} 1\n"), "\(after)")
            #expect(after.contains("\(closed){reason=\"idle\"} 0\n"))
        }
    }

    /// On by default, on a free port beside a relay on a free port.
    /// A stranger's body on a route that takes none (the probes, the OpenAPI document) is refused from the
    /// headers, never read: a body announced and not sent gets its 400 at once.
    @Test func aBodyOnARouteThatTakesNoneIsRefusedBeforeItIsRead() async throws {
        try await withRelayAndMock { harness in
            for target in ["/healthz", "/readyz", "/openapi.json"] {
                let raw = try await harness.rawExchange(
                    "GET \(target) HTTP/1.1\r\nHost: relay\r\nContent-Length: 60000\r\nConnection: close\r\n\r\n"
                )
                #expect(raw.hasPrefix("HTTP/1.1 400"), "\(target): \(raw.prefix(200))")
                #expect(raw.contains("GET \(target) takes no request body"), "\(target): \(raw.suffix(200))")
            }
            let chunked = try await harness.rawExchange(
                "HEAD /healthz HTTP/1.1\r\nHost: relay\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            )
            #expect(chunked.hasPrefix("HTTP/1.1 400"), "\(chunked.prefix(200))")
            // The admin listener's too, and a path of no route there is answered from the headers.
            let admin = try #require(try harness.relay.adminPort)
            for target in ["/metrics", "/nowhere"] {
                let raw = await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        continuation.resume(
                            returning: rawExchange(
                                port: admin,
                                "GET \(target) HTTP/1.1\r\nHost: relay\r\nContent-Length: 60000\r\nConnection: close\r\n\r\n"
                            )
                        )
                    }
                }
                #expect(
                    raw.hasPrefix(target == "/metrics" ? "HTTP/1.1 400" : "HTTP/1.1 404"),
                    "\(target): \(raw.prefix(200))"
                )
            }
            let empty = try await harness.rawExchange(
                "GET /healthz HTTP/1.1\r\nHost: relay\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            #expect(empty.hasPrefix("HTTP/1.1 200"), "\(empty.prefix(200))")
        }
    }

    @Test func itIsOnByDefault() async throws {
        try await withRelayAndMock { harness in
            let relay = try harness.relay
            let admin = try #require(relay.adminPort)
            #expect(admin != relay.port && admin > 0)
            #expect(try await TestRelay.get(port: admin, path: "/metrics").status == 200)
        }
    }

    /// Switched off, the metrics are served nowhere: the API's listener never shows them.
    @Test func withoutItNoListenerServesMetrics() async throws {
        try await withRelayAndMock(configure: { $0.http.admin.enabled = false }) { harness in
            let relay = try harness.relay
            #expect(relay.adminPort == nil)
            #expect(try await TestRelay.get(port: relay.port, path: "/metrics").status == 404)
            #expect(try await TestRelay.get(port: relay.port, path: "/readyz").status == 200)
        }
    }

    /// An admin port in use stops the start, and the API listener it had opened is closed again.
    @Test func anAdminPortInUseStopsTheStart() async throws {
        try await withRelayAndMock(configure: { $0.http.admin = .init(enabled: true, port: 0) }) { harness in
            var configuration = harness.configuration
            configuration.http.admin.port = try #require(try harness.relay.adminPort)
            let store = try SQLiteStore.temporary()
            let second = try Relay(configuration: configuration, store: store, logger: .disabled())
            await #expect(throws: HTTPServerError.self) { try await second.start() }
            #expect(second.port == 0, "the API listener was left open on \(second.port)")
        }
    }
}
