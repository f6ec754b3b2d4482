import Foundation
import RelayCore
import Testing

@testable import RelayWebPush

/// Per-origin limits: requests in flight, and the pause after refusals of distinct subscriptions.
@Suite struct OriginGuardTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anOriginHoldsAtMostItsSlots() {
        let origins = OriginGuard(maxInFlight: 2, pause: .init())
        #expect(origins.admit("https://a.example", now: Self.now) == .send)
        #expect(origins.admit("https://a.example", now: Self.now) == .send)
        #expect(origins.admit("https://a.example", now: Self.now) == .busy)
        #expect(origins.admit("https://b.example", now: Self.now) == .send)
        origins.finish("https://a.example")
        #expect(origins.admit("https://a.example", now: Self.now) == .send)
    }

    @Test func distinctRefusalsWithinTheWindowPauseTheOriginOnly() {
        let origins = OriginGuard(maxInFlight: 10, pause: .init())
        let a = "https://a.example"
        #expect(origins.refused(a, subscription: "web-1", now: Self.now) == nil)
        // The same subscription again does not count twice.
        #expect(origins.refused(a, subscription: "web-1", now: Self.now + 1) == nil)
        #expect(origins.refused(a, subscription: "web-2", now: Self.now + 2) == nil)
        let until = origins.refused(a, subscription: "web-3", now: Self.now + 3)
        #expect(until == Self.now + 603)
        #expect(origins.admit(a, now: Self.now + 4) == .paused(until: Self.now + 603))
        #expect(origins.admit("https://b.example", now: Self.now + 4) == .send)
        #expect(origins.admit(a, now: Self.now + 603) == .send)
    }

    @Test func refusalsOutsideTheWindowDoNotAddUp() {
        let origins = OriginGuard(maxInFlight: 10, pause: .init())
        let a = "https://a.example"
        #expect(origins.refused(a, subscription: "web-1", now: Self.now) == nil)
        #expect(origins.refused(a, subscription: "web-2", now: Self.now + 1) == nil)
        #expect(origins.refused(a, subscription: "web-3", now: Self.now + 700) == nil)
        #expect(origins.admit(a, now: Self.now + 701) == .send)
    }
}
