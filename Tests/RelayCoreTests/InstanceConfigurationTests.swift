import Foundation
import Testing

@testable import RelayCore

/// `delivery.instanceId`: the relay's name among relays on one database.
@Suite struct InstanceConfigurationTests {
    @Test func aConfiguredIdIsUsedAsGiven() throws {
        let loaded = try Configuration.load(
            file: nil,
            environment: ["PUSH_RELAY_DELIVERY_INSTANCE_ID": "relay-a.1", "PUSH_RELAY_STORAGE_POSTGRES_URL": "x"]
        )
        #expect(loaded.resolvedInstanceId(hostName: "host") == "relay-a.1")
    }

    /// SQLite: a fixed id, so a restart takes back its own leases. PostgreSQL: the host and a new random part
    /// each start, so two relays never share one unless configured to.
    @Test func anEmptyIdPicksOneByStore() {
        var configuration = Configuration()
        #expect(configuration.resolvedInstanceId(hostName: "host") == Configuration.localInstanceId)
        configuration.storage.postgres.url = "postgresql://relay@db/relay"
        let first = configuration.resolvedInstanceId(hostName: "web 1.internal")
        let second = configuration.resolvedInstanceId(hostName: "web 1.internal")
        #expect(first.hasPrefix("web-1-internal-") && first.count == "web-1-internal-".count + 8)
        #expect(first != second)
        #expect(Configuration.isShortId(first))
        #expect(Configuration.isShortId(configuration.resolvedInstanceId()))
    }

    @Test(arguments: ["has space", "slash/no", String(repeating: "a", count: 65), "é"])
    func anUnusableIdIsRefused(id: String) {
        let error = #expect(throws: Configuration.Invalid.self) {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_DELIVERY_INSTANCE_ID": id])
        }
        #expect(error?.problems.contains { $0.hasPrefix("delivery.instanceId:") } == true)
    }
}
