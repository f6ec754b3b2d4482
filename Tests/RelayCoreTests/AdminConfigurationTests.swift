import Foundation
import Testing

@testable import RelayCore

/// `http.admin` as files and variables set it, and what `validate()` refuses.
@Suite struct AdminConfigurationTests {
    @Test func itIsOnByDefaultOnLoopbackAndVariablesSetIt() throws {
        #expect(Configuration().http.admin == .init(enabled: true, host: "127.0.0.1", port: 8081))
        let configuration = try Configuration.load(
            file: nil,
            environment: ["PUSH_RELAY_HTTP_ADMIN_HOST": "0.0.0.0", "PUSH_RELAY_HTTP_ADMIN_PORT": "9464"]
        )
        #expect(configuration.http.admin == .init(enabled: true, host: "0.0.0.0", port: 9464))
        let off = try Configuration.load(file: nil, environment: ["PUSH_RELAY_HTTP_ADMIN_ENABLED": "false"])
        #expect(!off.http.admin.enabled)
    }

    /// A relay on a free port (tests, `serve --port 0`) gets a free admin port too, unless one is set.
    @Test func itsDefaultPortFollowsAFreeAPIPort() {
        let admin = Configuration.HTTP.Admin()
        #expect(admin.resolvedPort(publicPort: 8080) == 8081)
        #expect(admin.resolvedPort(publicPort: 0) == 0)
        #expect(Configuration.HTTP.Admin(port: 9464).resolvedPort(publicPort: 0) == 9464)
        var configuration = Configuration()
        configuration.http.port = 8081
        #expect(configuration.http.problems().contains { $0.hasPrefix("http.admin.port: must differ") })
        configuration.http.port = 0
        #expect(configuration.http.problems().isEmpty)
    }

    @Test func itsPortMustDifferFromTheAPIsAndBeAPort() {
        var configuration = Configuration()
        configuration.http.admin = .init(enabled: true, host: "", port: 8080)
        let clash = configuration.http.problems()
        #expect(clash.contains { $0.hasPrefix("http.admin.port: must differ from http.port (8080)") }, "\(clash)")
        #expect(clash.contains("http.admin.host: must not be empty"), "\(clash)")
        configuration.http.admin = .init(enabled: true, port: 70_000)
        #expect(configuration.http.problems().contains("http.admin.port: must be 0...65535, is 70000"))
        // Both on port 0 get free ports of their own; a disabled listener is not looked at.
        configuration.http.port = 0
        configuration.http.admin = .init(enabled: true, port: 0)
        #expect(configuration.http.problems().isEmpty)
        configuration.http.port = 8080
        configuration.http.admin = .init(enabled: false, host: "", port: 8080)
        #expect(configuration.http.problems().isEmpty)
    }
}
