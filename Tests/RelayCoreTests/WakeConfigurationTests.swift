import Foundation
import RelayCore
import Testing

/// Wake mode's settings (`apps[].apns.mode`, `apps[].fcm.mode`, `apps[].wakeBudgetPerHour`): read, checked,
/// printed, and the ``WakePolicy`` they make.
@Suite struct WakeConfigurationTests {
    typealias Folder = PlatformConfigurationTests.Folder

    @Test func modesAndBudgetAreReadPrintedAndMakeThePolicy() throws {
        let folder = try Folder()
        let file = try folder.appFile(#""apns":{"mode":"wake"},"fcm":{"mode":"wake"},"wakeBudgetPerHour":5"#)
        let configuration = try Configuration.load(file: file, environment: [:])
        let app = try #require(configuration.apps.first)
        #expect(app.apns.mode == .wake && app.fcm?.mode == .wake && app.wakeBudgetPerHour == 5)
        #expect(WakePolicy(app: app) == WakePolicy(platforms: [.ios, .android], budgetPerHour: 5))
        // `config check` prints them.
        let printed = try #require(
            try JSONSerialization.jsonObject(with: Data(configuration.redactedJSON.utf8)) as? [String: Any]
        )
        let shown = try #require((printed["apps"] as? [[String: Any]])?.first)
        #expect((shown["apns"] as? [String: Any])?["mode"] as? String == "wake")
        #expect((shown["fcm"] as? [String: Any])?["mode"] as? String == "wake")
        #expect(shown["wakeBudgetPerHour"] as? Int == 5)
    }

    @Test func byDefaultAnAppAlertsWithABudgetOf3() throws {
        let folder = try Folder()
        let app = try #require(
            try Configuration.load(file: try folder.appFile(#""fcm":{}"#), environment: [:]).apps.first
        )
        #expect(app.apns.mode == .alert && app.fcm?.mode == .alert && app.wakeBudgetPerHour == 3)
        #expect(WakePolicy(app: app) == nil)
        var iosOnly = app
        iosOnly.apns.mode = .wake
        #expect(WakePolicy(app: iosOnly) == WakePolicy(platforms: [.ios], budgetPerHour: 3))
        var noFCM = app
        noFCM.fcm = nil
        #expect(WakePolicy(app: noFCM) == nil)
    }

    /// A browser must show something for every push: a policy never wakes a web device, and an app with Web
    /// Push settings and no wake mode has no policy.
    @Test func aWebDeviceIsNeverWoken() throws {
        let policy = WakePolicy(platforms: [.ios, .web], budgetPerHour: 3)
        #expect(policy.platforms == [.ios])
        let app = Configuration.App(
            id: "app-a",
            topic: "com.example.chat",
            apiKeySHA256: [String(repeating: "0", count: 64)],
            webPush: .init()
        )
        #expect(WakePolicy(app: app) == nil)
    }

    @Test func anUnknownModeOrABudgetOutOfRangeIsRefusedClearly() throws {
        let folder = try Folder()
        #expect(
            PlatformConfigurationTests.problems(try folder.appFile(#""apns":{"mode":"silent"}"#))
                == ["apps[0].apns.mode: must be one of alert, wake, not 'silent'"]
        )
        #expect(
            PlatformConfigurationTests.problems(try folder.appFile(#""fcm":{"mode":"quiet"}"#))
                == ["apps[0].fcm.mode: must be one of alert, wake, not 'quiet'"]
        )
        for budget in [0, -1, 61] {
            #expect(
                PlatformConfigurationTests.problems(try folder.appFile(#""wakeBudgetPerHour":\#(budget)"#))
                    == ["apps[0].wakeBudgetPerHour: must be 1...60 (wake pushes a device takes in an hour)"]
            )
        }
        #expect(PlatformConfigurationTests.problems(try folder.appFile(#""wakeBudgetPerHour":60"#)).isEmpty)
    }
}
