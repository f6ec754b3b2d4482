import Foundation
import RelayCore
import Testing
import WebPushCore

@testable import RelayWebPush

/// The VAPID token of each origin: signed once, reused, renewed before it expires.
@Suite struct VAPIDTokensTests {
    static let key = try! VAPIDKey.generate()

    static func tokens(_ time: ManualTimeSource) throws -> VAPIDTokens {
        VAPIDTokens(
            key: key,
            subject: try VAPIDSubject(validating: "mailto:ops@example.com"),
            lifetime: 12 * 3600,
            renewal: 3600,
            time: time
        )
    }

    @Test func oneTokenPerOriginIsReusedAndRenewedWithAnHourLeft() throws {
        let time = ManualTimeSource()
        let tokens = try Self.tokens(time)
        let first = try tokens.authorization(for: "https://push.example")
        #expect(try tokens.authorization(for: "https://push.example") == first)
        let verified = try VAPIDVerifier.verify(first.headerValue, audience: "https://push.example", now: time.now)
        #expect(verified.claims.exp == Int(time.now.timeIntervalSince1970) + 12 * 3600)
        #expect(verified.claims.sub == "mailto:ops@example.com")
        #expect(verified.publicKey == Self.key.publicKey)

        let other = try tokens.authorization(for: "https://other.example:8443")
        #expect(other != first)
        #expect(throws: WebPushError.self) {
            try VAPIDVerifier.verify(other.headerValue, audience: "https://push.example", now: time.now)
        }
        #expect(tokens.minted == 2)

        time.advance(by: .seconds(11 * 3600 - 1))
        #expect(try tokens.authorization(for: "https://push.example") == first)
        #expect(tokens.minted == 2)
        time.advance(by: .seconds(1))
        let renewed = try tokens.authorization(for: "https://push.example")
        #expect(renewed != first)
        #expect(tokens.minted == 3)
        _ = try VAPIDVerifier.verify(renewed.headerValue, audience: "https://push.example", now: time.now)
    }

    @Test func theCacheKeepsABoundedNumberOfOrigins() throws {
        let tokens = try Self.tokens(ManualTimeSource())
        for index in 0..<(VAPIDTokens.maxOrigins + 10) {
            _ = try tokens.authorization(for: "https://h\(index).example")
        }
        #expect(tokens.cachedOrigins == VAPIDTokens.maxOrigins)
    }
}
