import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelayPostgres

/// `push-relay serve` on PostgreSQL whose instance lock another process takes while the relay's session is
/// gone: the relay stops at once, never leasing under an id another relay holds.
@Suite struct ServeInstanceLockTests {
    @Test func aRelayWhoseInstanceLockIsTakenExitsWithACriticalLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let relay = try RelayProcess(
            ["serve", "--port", "0"],
            environment: [
                "PUSH_RELAY_STORAGE_POSTGRES_URL": url,
                "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("db.sqlite").path,
                "PUSH_RELAY_DELIVERY_INSTANCE_ID": "relay-a",
            ],
            outputIn: directory.url,
            name: "relay"
        )
        _ = try await relay.listeningPort()

        let taker = try PostgresStore(url: url, logger: .disabled())
        var taken = false
        for _ in 0..<300 where !taken {
            taken = try await taker.takeInstanceLockFromHolders("relay-a")
            if !taken { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(taken)

        #expect(try await relay.exitStatus().status == 1)
        let lines = try ServeLogTests.objects(relay.stderr)
        let line = try #require(lines.first { $0["level"] as? String == "critical" }, "\(relay.stderr)")
        #expect(line["msg"] as? String == "instance lock lost to another process; stopping")
        #expect(line["instance.id"] as? String == "relay-a")
    }
}

extension PostgresStore {
    /// ``PostgresConnection/takeInstanceLockFromHolders(_:)`` on this store's connection.
    func takeInstanceLockFromHolders(_ id: String) throws -> Bool { try db.takeInstanceLockFromHolders(id) }
}
