import Foundation
import RelayCore
import Testing

@testable import RelayWebPush

/// Per-origin limits: what proven and unproven origins may hold, and the pause after refusals of distinct
/// subscriptions that no accepted push contradicts.
@Suite struct OriginGuardTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func limits(perOrigin: Int = 4, total: Int = 16) -> WebPushClientConfiguration.Origins {
        var limits = WebPushClientConfiguration.Origins()
        limits.unprovenPerOrigin = perOrigin
        limits.unprovenTotal = total
        return limits
    }

    /// Takes a slot, or fails the test.
    static func take(_ origins: OriginGuard, _ origin: String, at now: Date = now) throws -> OriginGuard.Ticket {
        guard case .send(let ticket) = origins.admit(origin, now: now) else {
            throw Failure("\(origin) was not admitted")
        }
        return ticket
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Endpoints that never answer hold at most the unproven slots, however many origins they use; an
    /// origin that accepted a push has its own, larger share.
    @Test func unprovenOriginsShareFewSlotsAndAProvenOneHasItsOwn() throws {
        let origins = OriginGuard(maxInFlight: 5, limits: Self.limits(perOrigin: 2, total: 3), pause: .init())
        // A push service that accepted a push: proven.
        origins.finish(try Self.take(origins, "https://fcm.example", at: Self.now - 1), accepted: true, now: Self.now)
        _ = try Self.take(origins, "https://slow1.example")
        _ = try Self.take(origins, "https://slow1.example")
        #expect(origins.admit("https://slow1.example", now: Self.now) == .busy(proven: false))
        _ = try Self.take(origins, "https://slow2.example")
        #expect(origins.admit("https://slow3.example", now: Self.now) == .busy(proven: false))
        #expect(origins.admit("https://push.example", now: Self.now) == .busy(proven: false))
        // The proven origin has its own bound, whatever the unproven ones hold; so has the app's mock.
        for _ in 0..<5 { _ = try Self.take(origins, "https://fcm.example") }
        #expect(origins.admit("https://fcm.example", now: Self.now) == .busy(proven: true))
        for _ in 0..<5 {
            guard case .send = origins.admit("https://mock.example", now: Self.now, trusted: true) else {
                throw Failure("the mock was not admitted")
            }
        }
        #expect(origins.admit("https://mock.example", now: Self.now, trusted: true) == .busy(proven: true))
    }

    @Test func anAcceptedPushProvesItsOriginForAWhile() throws {
        let origins = OriginGuard(maxInFlight: 5, limits: Self.limits(perOrigin: 1, total: 1), pause: .init())
        let a = "https://push.example"
        origins.finish(try Self.take(origins, a), accepted: true, now: Self.now)
        let tickets = try (0..<5).map { _ in try Self.take(origins, a, at: Self.now + 10) }
        #expect(tickets.allSatisfy { !$0.unproven })
        for ticket in tickets { origins.finish(ticket, accepted: false, now: Self.now + 10) }
        // An hour later it is unproven again: one slot.
        let later = Self.now + 3601
        _ = try Self.take(origins, a, at: later)
        #expect(origins.admit(a, now: later) == .busy(proven: false))
    }

    @Test func distinctRefusalsWithinTheWindowPauseTheOriginOnlyAndAProbeEndsIt() throws {
        let origins = OriginGuard(maxInFlight: 10, limits: Self.limits(), pause: .init())
        let a = "https://a.example"
        #expect(origins.refused(a, subscription: "web-1", now: Self.now) == nil)
        // The same subscription again does not count twice.
        #expect(origins.refused(a, subscription: "web-1", now: Self.now + 1) == nil)
        #expect(origins.refused(a, subscription: "web-2", now: Self.now + 2) == nil)
        #expect(origins.refused(a, subscription: "web-3", now: Self.now + 3) == Self.now + 603)
        #expect(origins.admit(a, now: Self.now + 4) == .paused(until: Self.now + 33))
        _ = try Self.take(origins, "https://b.example", at: Self.now + 4)
        // At the probe time one send goes; the others wait a moment for its answer.
        let probe = try Self.take(origins, a, at: Self.now + 33)
        #expect(probe.probe)
        #expect(origins.admit(a, now: Self.now + 34) == .paused(until: Self.now + 36))
        // The probe is accepted: the service takes the relay's key, the pause ends.
        origins.finish(probe, accepted: true, now: Self.now + 35)
        _ = try Self.take(origins, a, at: Self.now + 36)
    }

    /// A user's subscriptions made for another key (each answered 403) cannot pause a service that accepts
    /// other users' pushes: an accepted push clears the refusals.
    @Test func refusalsBetweenAcceptedPushesDoNotPause() throws {
        let origins = OriginGuard(maxInFlight: 10, limits: Self.limits(), pause: .init())
        let a = "https://fcm.example"
        for round in 0..<5 {
            let at = Self.now + Double(round * 10)
            #expect(origins.refused(a, subscription: "web-mallory-1", now: at) == nil)
            #expect(origins.refused(a, subscription: "web-mallory-2", now: at + 1) == nil)
            origins.finish(try Self.take(origins, a, at: at + 2), accepted: true, now: at + 2)
        }
        _ = try Self.take(origins, a, at: Self.now + 60)
    }

    /// Refusals that arrive together after pushes accepted within the window (a fan-out of a room where one
    /// user's subscriptions were made for another key) do not pause; a refused probe keeps the pause.
    @Test func refusalsAfterARecentAcceptanceDoNotPause() throws {
        let origins = OriginGuard(maxInFlight: 10, limits: Self.limits(), pause: .init())
        let a = "https://fcm.example"
        origins.finish(try Self.take(origins, a), accepted: true, now: Self.now)
        for index in 0..<5 {
            #expect(origins.refused(a, subscription: "web-\(index)", now: Self.now + 1) == nil)
        }
        _ = try Self.take(origins, a, at: Self.now + 2)
        // Past the window, refusals alone pause again.
        let later = Self.now + 700
        for index in 0..<2 { #expect(origins.refused(a, subscription: "web-\(index)", now: later) == nil) }
        #expect(origins.refused(a, subscription: "web-9", now: later) != nil)
    }

    /// A send waits for a busy proven origin only so long: an origin that stops answering does not keep it.
    @Test(.timeLimit(.minutes(1))) func aWaitForASlotEndsAfterItsTimeout() async throws {
        let origins = OriginGuard(maxInFlight: 1, limits: Self.limits(), pause: .init())
        let a = "https://fcm.example"
        let held = try Self.take(origins, a)
        #expect(await origins.waitForSlot(a, upTo: .milliseconds(50)) == false)
        #expect(origins.waiting(a) == 0)
        origins.finish(held, accepted: true, now: Self.now)
        // With a slot free, no wait at all.
        #expect(await origins.waitForSlot(a, upTo: .seconds(30)))
    }

    @Test func refusalsOutsideTheWindowDoNotAddUp() throws {
        let origins = OriginGuard(maxInFlight: 10, limits: Self.limits(), pause: .init())
        let a = "https://a.example"
        #expect(origins.refused(a, subscription: "web-1", now: Self.now) == nil)
        #expect(origins.refused(a, subscription: "web-2", now: Self.now + 1) == nil)
        #expect(origins.refused(a, subscription: "web-3", now: Self.now + 700) == nil)
        _ = try Self.take(origins, a, at: Self.now + 701)
    }

    /// A send to a proven origin at its bound waits for the next slot instead of being turned away; the first
    /// send to finish wakes it.
    @Test func aSendWaitsForAProvenOriginsNextSlot() async throws {
        let origins = OriginGuard(maxInFlight: 1, limits: Self.limits(), pause: .init())
        let a = "https://fcm.example"
        let held = try Self.take(origins, a, at: Self.now)
        #expect(origins.admit(a, now: Self.now, trusted: true) == .busy(proven: true))
        let waiter = Task {
            #expect(await origins.waitForSlot(a, upTo: .seconds(30)))
            return origins.admit(a, now: Self.now, trusted: true)
        }
        // The waiter may not have queued yet: finishing wakes it, or it finds the slot free.
        try await Task.sleep(for: .milliseconds(50))
        origins.finish(held, accepted: true, now: Self.now)
        guard case .send = await waiter.value else { throw Failure("the waiting send got no slot") }
    }
}
