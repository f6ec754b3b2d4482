import Foundation
import RelayCore
import Testing

/// `apps[].badgeUpdateSeconds`: read, defaulted, checked and printed.
@Suite struct BadgeUpdateConfigurationTests {
    typealias Folder = PlatformConfigurationTests.Folder

    @Test func theWindowIsReadPrintedAndDefaultsTo10() throws {
        let folder = try Folder()
        var configuration = try Configuration.load(
            file: try folder.appFile(#""badge":true,"badgeUpdateSeconds":30"#),
            environment: [:]
        )
        let app = try #require(configuration.apps.first)
        #expect(app.badge && app.badgeUpdateSeconds == 30)
        let printed = try #require(
            try JSONSerialization.jsonObject(with: Data(configuration.redactedJSON.utf8)) as? [String: Any]
        )
        #expect((printed["apps"] as? [[String: Any]])?.first?["badgeUpdateSeconds"] as? Int == 30)
        configuration = try Configuration.load(file: try folder.appFile(#""badge":true"#), environment: [:])
        #expect(configuration.apps.first?.badgeUpdateSeconds == 10)
    }

    @Test func aWindowOutOfRangeIsRefusedClearly() throws {
        let folder = try Folder()
        for seconds in [0, -5, 3601] {
            #expect(
                PlatformConfigurationTests.problems(try folder.appFile(#""badgeUpdateSeconds":\#(seconds)"#))
                    == [
                        "apps[0].badgeUpdateSeconds: must be 1...3600 (seconds between two badge updates to one device)"
                    ]
            )
        }
        #expect(PlatformConfigurationTests.problems(try folder.appFile(#""badgeUpdateSeconds":3600"#)).isEmpty)
        #expect(PlatformConfigurationTests.problems(try folder.appFile(#""badgeUpdateSeconds":1"#)).isEmpty)
    }
}
