import Foundation
import RelayCore
import Testing

/// `delivery.apnsConnections`: its default, the environment variable, and the range it is checked against.
@Suite struct APNsConnectionsConfigurationTests {
    @Test func defaultsToTwoAndTakesTheEnvironment() throws {
        #expect(Configuration().delivery.apnsConnections == 2)
        let configuration = try Configuration.load(
            file: nil,
            environment: ["PUSH_RELAY_DELIVERY_APNS_CONNECTIONS": "4"]
        )
        #expect(configuration.delivery.apnsConnections == 4)
    }

    @Test(arguments: [0, -1, 17])
    func aCountOutsideTheRangeIsRefused(count: Int) {
        let error = #expect(throws: Configuration.Invalid.self) {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_DELIVERY_APNS_CONNECTIONS": "\(count)"])
        }
        #expect(error?.problems == ["delivery.apnsConnections: must be 1...16"])
    }

    @Test(arguments: [1, 16])
    func theRangesEndsAreTaken(count: Int) throws {
        var configuration = Configuration()
        configuration.delivery.apnsConnections = count
        try configuration.validate()
    }
}
