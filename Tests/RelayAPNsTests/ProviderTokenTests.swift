import Foundation
import RelayAPNs
import RelayCore
import RelayCrypto
import Synchronization
import Testing

@Suite struct ProviderTokenTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../fixtures"
    )
    .standardized
    static let keyPath = fixtures.appendingPathComponent("keys/AuthKey_ABC123DEFG.p8").path
    static let publicKeyPath = fixtures.appendingPathComponent("keys/AuthKey_ABC123DEFG.pub.pem").path

    static func publicKey() throws -> ES256Key {
        try ES256Key(publicKeyPEM: String(contentsOfFile: publicKeyPath, encoding: .utf8))
    }

    static func makeToken(_ clock: some TimeSource, refreshAge: Duration = .seconds(50 * 60)) throws -> ProviderToken {
        try ProviderToken(
            keyPEMOrPath: keyPath,
            keyId: "ABC123DEFG",
            teamId: "TEAM123456",
            refreshAge: refreshAge,
            timeSource: clock
        )
    }

    @Test func theTokenIsAnES256JWTThatVerifiesWithTheKeysPublicHalf() async throws {
        let clock = ManualTimeSource(now: Date(timeIntervalSince1970: 1_800_000_000))
        let token = try Self.makeToken(clock)
        let jwt = try JSONWebToken(parsing: await token.current())
        #expect(jwt.header == .init(alg: "ES256", kid: "ABC123DEFG"))
        #expect(jwt.claims == .init(iss: "TEAM123456", iat: 1_800_000_000))
        #expect(jwt.verify(with: try Self.publicKey()))
        #expect(try await token.authorization() == "bearer " + token.current())
    }

    @Test func aPEMStringWorksAsWellAsAPath() async throws {
        let pem = try String(contentsOfFile: Self.keyPath, encoding: .utf8)
        let token = try ProviderToken(keyPEMOrPath: pem, keyId: "ABC123DEFG", teamId: "TEAM123456")
        #expect(try JSONWebToken(parsing: await token.current()).verify(with: try Self.publicKey()))
        #expect(throws: CryptoError.self) {
            try ProviderToken(keyPEMOrPath: "/nonexistent/key.p8", keyId: "K", teamId: "T")
        }
    }

    @Test func oneTokenIsReusedUntilItReachesTheRefreshAge() async throws {
        let clock = ManualTimeSource()
        let token = try Self.makeToken(clock)
        let first = try await token.current()
        clock.advance(by: .seconds(50 * 60 - 1))
        #expect(try await token.current() == first)
        #expect(token.generation == 1)
        clock.advance(by: .seconds(1))
        let second = try await token.current()
        #expect(second != first)
        #expect(token.generation == 2)
        let iat1 = try JSONWebToken(parsing: first).claims.iat
        let iat2 = try JSONWebToken(parsing: second).claims.iat
        #expect(iat2 - iat1 == 50 * 60)
        #expect(try JSONWebToken(parsing: second).verify(with: try Self.publicKey()))
    }

    @Test(arguments: [19 * 60, 61 * 60])
    func aRefreshAgeOutside20To60MinutesIsRefused(seconds: Int) {
        #expect(throws: CryptoError.self) { try Self.makeToken(ManualTimeSource(), refreshAge: .seconds(seconds)) }
    }

    @Test func invalidateIsIgnoredWithin20MinutesAndHonouredAfter() async throws {
        let clock = ManualTimeSource()
        let token = try Self.makeToken(clock, refreshAge: .seconds(60 * 60))
        let first = try await token.current()
        clock.advance(by: .seconds(19 * 60))
        #expect(token.invalidate() == false)
        #expect(try await token.current() == first)
        clock.advance(by: .seconds(60))
        #expect(token.invalidate() == true)
        let second = try await token.current()
        #expect(second != first)
        #expect(token.generation == 2)
        // The forced refresh is used once: the new token is kept.
        #expect(try await token.current() == second)
    }

    @Test func invalidateIsHonouredWhenTheWallClockSaysTheTokenIsAnHourOld() async throws {
        let clock = SettableTimeSource()
        let token = try Self.makeToken(clock)
        let first = try await token.current()
        clock.setWallClock(by: 3600)  // the wall clock was set forward; the monotonic clock did not move
        #expect(token.invalidate() == true)
        let second = try await token.current()
        #expect(second != first)
        #expect(try JSONWebToken(parsing: second).claims.iat - JSONWebToken(parsing: first).claims.iat == 3600)
    }

    @Test func concurrentCallersShareOneToken() async throws {
        let token = try Self.makeToken(ManualTimeSource())
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await token.current() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(token.generation == 1)
    }
}

/// A time source whose wall clock can jump while the monotonic clock stands still.
final class SettableTimeSource: TimeSource {
    private let offset = Mutex<TimeInterval>(0)
    private let base = Date(timeIntervalSince1970: 1_800_000_000)
    var monotonic: Duration { .seconds(100) }
    var now: Date { base + offset.withLock { $0 } }
    func setWallClock(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
