import RelayCore
import Testing

/// What each platform keeps of a registration on its token: the scope it is reached through, the identities
/// it is unlinked from, and whether its service says since when it is invalid.
@Suite struct PushTokenRegistrationTests {
    static let apns = PushToken.apns(try! DeviceToken(parsing: DeviceTokenTests.hex))
    static let fcm = PushToken.fcm(try! FCMRegistrationToken(parsing: FCMRegistrationTokenTests.token))
    static let web = PushToken.web(try! WebPushToken(parsing: "web-" + String(repeating: "A", count: 43)))

    @Test func anAPNsTokenTakesAnEnvironmentAsItsScope() throws {
        #expect(PushToken.scopes(of: .ios) == ["sandbox", "production"])
        let sandbox = try Self.apns.registered(scope: "sandbox")
        #expect(sandbox.scope == "sandbox" && sandbox.storedScope == "sandbox")
        #expect(try sandbox.registered(scope: nil).scope == nil)
        #expect(Self.apns.storedScope == "production")  // not known: APNs' production
        #expect(throws: PushToken.ParseError.self) { try Self.apns.registered(scope: "staging") }
    }

    @Test(arguments: [fcm, web]) func aTokenOfAServiceWithOneScopeStaysAsItIs(token: PushToken) throws {
        #expect(PushToken.scopes(of: token.platform) == [nil])
        let registered = try token.registered(scope: "sandbox")
        #expect(registered == token && registered.scope == nil)
        #expect(registered.storedScope == PushToken.storedWithoutScope)
    }

    @Test func onlyAPNsSaysSinceWhenATokenIsInvalid() {
        #expect(Self.apns.reportsInvalidSince)
        #expect(!Self.fcm.reportsInvalidSince && !Self.web.reportsInvalidSince)
    }

    @Test func aStoredAPNsTokenKeepsItsUnlinkedTopicsAndEnvironment() throws {
        let stored = try PushToken(
            stored: DeviceTokenTests.hex,
            platform: .ios,
            address: nil,
            scope: "sandbox",
            unlinked: ["com.example.chat"]
        )
        #expect(stored.unlinked == ["com.example.chat"] && stored.scope == "sandbox")
        guard case .apns(let token) = stored else {
            Issue.record("an iOS token is not an APNs token")
            return
        }
        #expect(token.unlinkedTopics == ["com.example.chat"])
        let fcm = try PushToken(
            stored: Self.fcm.value,
            platform: .android,
            address: nil,
            scope: "production",
            unlinked: ["com.example.chat"]
        )
        #expect(fcm.unlinked == [])  // FCM unlinks nothing
    }
}
