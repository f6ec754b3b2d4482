import Foundation
import RelayCore
import Testing

/// `apps[].webPush` read and checked, and the web device token (``WebPushToken``) a path or the store names.
@Suite struct WebPushConfigurationTests {
    typealias Folder = PlatformConfigurationTests.Folder

    @Test func settingsAreReadAndPrinted() throws {
        let folder = try Folder()
        let file = try folder.appFile(
            #""webPush":{"vapidKeyFile":"/k.pem","subject":"mailto:ops@example.com","declarative":true,"#
                + #""openURL":"https://chat.example.com/rooms/{roomId}#{messageId}"}"#
        )
        let app = try #require(try Configuration.load(file: file, environment: [:]).apps.first)
        let webPush = try #require(app.webPush)
        #expect(webPush.vapidKeyFile == "/k.pem" && webPush.subject == "mailto:ops@example.com")
        #expect(webPush.declarative && webPush.openURL == "https://chat.example.com/rooms/{roomId}#{messageId}")
    }

    @Test func everyProblemIsNamed() throws {
        let folder = try Folder()
        let cases: [(String, String)] = [
            (#""webPush":{"vapidKeyFile":"/k.pem"}"#, "apps[0].webPush.subject: required"),
            (#""webPush":{"declarative":true}"#, "apps[0].webPush.openURL: required with declarative"),
            (#""webPush":{"openURL":"/rooms/{roomId}"}"#, "apps[0].webPush.openURL: must be an absolute"),
            (#""webPush":{"openURL":"https://c.example/{roomid}"}"#, "apps[0].webPush.openURL: only {roomId} and"),
            (#""webPush":{"sub":"x"}"#, "sub"),
            // A mock's origin takes subscriptions the https and public-address rules would refuse.
            (
                #""webPush":{"mock":{"baseURL":"http://10.0.0.5:80"}}"#,
                "apps[0].webPush.mock.baseURL: must name this host"
            ),
            (#""webPush":{"mock":{"baseURL":"https://push.example.com"}}"#, "apps[0].webPush.mock.baseURL: must name"),
            (#""webPush":{"mock":{"baseURL":"http://[::2]:80"}}"#, "apps[0].webPush.mock.baseURL: must name this host"),
            (#""webPush":{"mock":{"baseURL":"http://127.0.0.1:99999"}}"#, "mock.baseURL: the port must be 1 to 65535"),
            // Full-width letters that Foundation's URL reads as `localhost`.
            (#""webPush":{"mock":{"baseURL":"http://\#u{FF4C}ocalhost:80"}}"#, "mock.baseURL: must be ASCII"),
        ]
        for (settings, expected) in cases {
            #expect(throws: (any Error).self) {
                try Configuration.load(file: try folder.appFile(settings), environment: [:])
            }
            do {
                _ = try Configuration.load(file: try folder.appFile(settings), environment: [:])
            } catch {
                #expect(String(describing: error).contains(expected), "\(settings): \(error)")
            }
        }
    }

    /// A mock on this machine, however it is spelt, is taken.
    @Test(arguments: ["https://127.0.0.1:2199", "http://127.8.0.1", "http://[::1]:2199", "https://LocalHost:1"])
    func aMockOnThisHostIsTaken(_ baseURL: String) throws {
        let folder = try Folder()
        let file = try folder.appFile(#""webPush":{"mock":{"baseURL":"\#(baseURL)"}}"#)
        let app = try #require(try Configuration.load(file: file, environment: [:]).apps.first)
        #expect(app.webPush?.mock?.baseURL == baseURL)
    }

    @Test func aWebTokenIsItsIdentityAndStoredWithItsSubscription() throws {
        let identity = "web-" + String(repeating: "A", count: 42) + "_"
        let named = try PushToken(parsing: identity, platform: .web)
        #expect(named.platform == .web && named.value == identity && named.address == nil)
        let stored = try PushToken(stored: identity, platform: .web, address: #"{"endpoint":"https://x"}"#, scope: nil)
        #expect(stored == named && stored.address == #"{"endpoint":"https://x"}"#)
        #expect(throws: PushToken.ParseError.self) {
            try PushToken(stored: identity, platform: .web, address: nil, scope: nil)
        }
        for bad in ["web-short", "web-" + String(repeating: "+", count: 43), String(repeating: "A", count: 47)] {
            #expect(throws: PushToken.ParseError.self) { try PushToken(parsing: bad, platform: .web) }
        }
        // An APNs or FCM token has no address.
        let fcm = try PushToken(stored: String(repeating: "f", count: 40), platform: .android, address: nil, scope: nil)
        #expect(fcm.address == nil && fcm.platform == .android)
    }
}
