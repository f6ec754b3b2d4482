import APNsMock
import Foundation
import RelayCore
import RelayPostgres
import RelayServer
import RelayStore
import RelayTestSupport
import Synchronization
import Testing

/// Several relays in this process on one PostgreSQL database (a new schema of the test cluster) sending to
/// the one mock APNs of a ``RelayTestBed``: each ``start(_:configure:)`` is another relay with its own store
/// and instance id. ``stopAll()`` shuts down those still running.
final class PostgresRelays: Sendable {
    let bed: RelayTestBed
    /// The database's connection URI.
    let url: String
    /// The cluster the database is on.
    let cluster: PostgresCluster
    /// SECONDS one statement of a relay may take before it fails (`.io`).
    let statementTimeout: Double
    private let running = Mutex<[TestRelay]>([])

    /// - Parameter cluster: the cluster to use (one of the test's own to stop it); nil for the shared one.
    init(bed: RelayTestBed, cluster: PostgresCluster? = nil, statementTimeout: Double = 10) async throws {
        self.bed = bed
        let cluster = try await Self.cluster(cluster)
        self.cluster = cluster
        self.statementTimeout = statementTimeout
        url = try await cluster.newDatabaseURL()
    }

    /// `given`, or the test process's shared cluster.
    private static func cluster(_ given: PostgresCluster?) async throws -> PostgresCluster {
        if let given { return given }
        return try await PostgresCluster.shared()
    }

    /// A store of its own on the database (another relay's, or the test's probe).
    func openStore() throws -> PostgresStore { try PostgresStore(url: url, logger: .disabled()) }

    /// Starts a relay with instance id `id`; polling waits five minutes unless `configure` says otherwise,
    /// so only a notification or its own API wakes its dispatcher.
    @discardableResult
    func start(
        _ id: String,
        gaugeInterval: Duration = .seconds(10),
        configure: (inout Configuration) -> Void = { _ in }
    ) async throws -> Relay {
        var configuration = bed.configuration
        configuration.storage.postgres.url = url
        configuration.delivery.instanceId = id
        configuration.delivery.pollIntervalMilliseconds = 300_000
        configure(&configuration)
        let relay = TestRelay(
            configuration: configuration,
            store: .postgresPool(statementTimeout: statementTimeout),
            options: .init(gaugeInterval: gaugeInterval),
            directory: bed.directory
        )
        try await relay.start()
        running.withLock { $0.append(relay) }
        return try relay.relay
    }

    /// Graceful stop of `relay`.
    func stop(_ relay: Relay) async {
        let stopping = running.withLock { running -> [TestRelay] in
            let stopping = running.filter { (try? $0.relay) === relay }
            running.removeAll { (try? $0.relay) === relay }
            return stopping
        }
        for testRelay in stopping { await testRelay.stop() }
    }

    func stopAll() async {
        let stopping = running.withLock { running -> [TestRelay] in
            defer { running = [] }
            return running
        }
        for relay in stopping { await relay.stop() }
    }

    /// One API call to `relay` with the first app's key, expecting `status`.
    @discardableResult
    func call(_ relay: Relay, _ method: String, _ path: String, json: Any?, status: Int) async throws -> APIResponse {
        let (code, body, headers) = try await exchange(
            port: relay.port,
            method,
            path,
            bearer: bed.apps[0].apiKey,
            json: json,
            body: nil,
            headers: [:]
        )
        let response = APIResponse(status: code, body: body, headers: headers)
        try #require(code == status, "\(method) \(path): \(code) \(response.text)")
        return response
    }

    /// Registers `tokens` through `relay`, each for its own user, in room `crowd`.
    func registerCrowd(_ tokens: [String], through relay: Relay) async throws {
        for (index, token) in tokens.enumerated() {
            try await call(
                relay,
                "POST",
                "/v1/devices",
                json: ["token": token, "userId": "user\(index)", "rooms": ["crowd"]],
                status: 201
            )
        }
    }

    /// Posts one message to room `crowd` through `relay`; returns the notification id.
    func postToCrowd(through relay: Relay, messageId: String = UUID().uuidString) async throws -> String {
        let answer = try await call(
            relay,
            "POST",
            "/v1/webhooks/did-send-message",
            json: ["roomId": "crowd", "senderId": "speaker", "text": "everyone", "messageId": messageId],
            status: 202
        )
        return try answer.decode(WebhookAnswer.self).notificationId
    }

    /// Polls the notification through `relay` until nothing of it is pending (up to 60 s); returns its
    /// view. A 503 `storage_unavailable` (a pooled connection still coming back after an outage) is polled
    /// again like a pending answer.
    func settled(_ id: String, through relay: Relay) async throws -> NotificationJSON {
        let testRelay = try #require(running.withLock { $0.first { (try? $0.relay) === relay } })
        return try await testRelay.settled(
            id,
            bearer: bed.apps[0].apiKey,
            retryingUnavailable: true,
            timeout: .seconds(60)
        ).decode(NotificationJSON.self)
    }

    /// How many pushes the mock accepted for each token.
    func sendsByToken() -> [String: Int] {
        bed.mock.requests.reduce(into: [:]) { counts, request in counts[request.deviceToken ?? "", default: 0] += 1 }
    }
}

/// Runs `body` with relays on a new PostgreSQL database and a mock APNs answering by `script`; always stops
/// the relays, then the mock.
func withPostgresRelays(
    script: MockScript = MockScript(),
    cluster: PostgresCluster? = nil,
    statementTimeout: Double = 10,
    _ body: (PostgresRelays) async throws -> Void
) async throws {
    try await withRelayTestBed(appCount: 1, script: script, configure: { _ in }) { bed in
        let relays = try await PostgresRelays(bed: bed, cluster: cluster, statementTimeout: statementTimeout)
        do {
            try await body(relays)
        } catch {
            await relays.stopAll()
            throw error
        }
        await relays.stopAll()
    }
}
