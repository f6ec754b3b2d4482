import Foundation
import Synchronization

/// What one app's sends to each push service origin may do. Any site can run a push service and any user can
/// register its endpoints, so an origin earns its share:
/// - an origin is *proven* while it accepted a push (2xx) within ``WebPushClientConfiguration/Origins/provenFor``;
///   a proven origin (a browser vendor's service) may have
///   ``WebPushClientConfiguration/maxInFlightPerOrigin`` requests in flight;
/// - every other origin may have ``WebPushClientConfiguration/Origins/unprovenPerOrigin``, and all of them
///   together ``WebPushClientConfiguration/Origins/unprovenTotal``: endpoints that never answer hold at most
///   those slots, whatever their number;
/// - 403s of several distinct subscriptions of one origin within a window, with no push accepted there within
///   it, pause it (the service refuses the relay's VAPID credentials); while paused, one send probes it every
///   ``WebPushClientConfiguration/OriginPause/probeInterval`` (the others wait for its answer), and an accepted
///   push ends the pause. A user's own subscriptions made for another key cannot pause a service that accepted
///   others' pushes within the window. Never the app: other origins go on.
///
/// Memory stays bounded: an origin is kept while it has requests in flight, recent refusals, a pause or a
/// recent acceptance, at most ``maxOrigins`` of them (the least recently accepted are forgotten first).
final class OriginGuard: Sendable {
    /// Whether a send to an origin may go.
    enum Admission: Equatable {
        /// Go, and call ``finish(_:accepted:now:)`` with the ticket when done.
        case send(Ticket)
        /// The origin (or the unproven origins together) has its most requests in flight; `proven` when it is
        /// a proven origin at its own bound, whose next free slot ``waitForSlot(_:)`` waits for.
        case busy(proven: Bool)
        /// The origin is paused; its next probe is due then.
        case paused(until: Date)
    }

    /// A slot taken by ``admit(_:now:trusted:)``.
    struct Ticket: Equatable {
        let origin: String
        let unproven: Bool
        /// The send that probes a paused origin.
        var probe = false
    }

    private struct Origin {
        var inFlight = 0
        /// Distinct subscriptions that refused since the last acceptance, with when.
        var refusals: [String: Date] = [:]
        var pausedUntil: Date?
        var nextProbe: Date?
        /// A probe is out: the other sends wait for its answer (``probeWait``), not a whole interval.
        var probing = false
        var acceptedAt: Date?
        /// Sends waiting for a slot of this (proven) origin, first come first served, by their number.
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []

        var isIdle: Bool {
            inFlight == 0 && refusals.isEmpty && pausedUntil == nil && acceptedAt == nil && waiters.isEmpty
        }
    }

    private struct State {
        var origins: [String: Origin] = [:]
        var unprovenInFlight = 0
        var nextWaiter: UInt64 = 0
    }

    /// Origins remembered at most.
    static let maxOrigins = 4096
    /// How long a send to a paused origin is held while a probe is out.
    static let probeWait: TimeInterval = 2

    private let maxInFlight: Int
    private let limits: WebPushClientConfiguration.Origins
    private let pause: WebPushClientConfiguration.OriginPause
    private let state = Mutex(State())

    init(
        maxInFlight: Int,
        limits: WebPushClientConfiguration.Origins,
        pause: WebPushClientConfiguration.OriginPause
    ) {
        self.maxInFlight = maxInFlight
        self.limits = limits
        self.pause = pause
    }

    /// Takes a slot of `origin` for a send at `now`, unless it is paused (and not due for a probe) or full.
    /// A `trusted` origin (the app's configured mock) counts as proven.
    func admit(_ origin: String, now: Date, trusted: Bool = false) -> Admission {
        state.withLock { state in
            var entry = state.origins[origin] ?? Origin()
            var probe = false
            if let until = entry.pausedUntil {
                if until <= now {
                    entry.pausedUntil = nil
                    entry.nextProbe = nil
                } else if entry.probing {
                    return .paused(until: min(until, now + Self.probeWait))
                } else if let next = entry.nextProbe, next > now {
                    return .paused(until: min(until, next))
                } else {
                    entry.nextProbe = now + pause.probeInterval.timeInterval
                    entry.probing = true
                    probe = true
                }
            }
            let proven =
                trusted || entry.acceptedAt.map { now.timeIntervalSince($0) < limits.provenFor.timeInterval } ?? false
            if proven {
                guard entry.inFlight < maxInFlight else { return .busy(proven: true) }
            } else {
                guard entry.inFlight < limits.unprovenPerOrigin, state.unprovenInFlight < limits.unprovenTotal else {
                    return .busy(proven: false)
                }
                state.unprovenInFlight += 1
            }
            entry.inFlight += 1
            state.origins[origin] = entry
            if state.origins.count > Self.maxOrigins { Self.prune(&state, now: now, provenFor: limits.provenFor) }
            return .send(Ticket(origin: origin, unproven: !proven, probe: probe))
        }
    }

    /// Gives back the slot ``admit(_:now:trusted:)`` took, waking the first send waiting for one; `accepted`
    /// when the service took the push, which proves the origin and ends its refusals and pause.
    func finish(_ ticket: Ticket, accepted: Bool, now: Date) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if ticket.unproven { state.unprovenInFlight = max(0, state.unprovenInFlight - 1) }
            guard var entry = state.origins[ticket.origin] else { return nil }
            entry.inFlight = max(0, entry.inFlight - 1)
            if ticket.probe { entry.probing = false }
            if accepted {
                entry.acceptedAt = now
                entry.refusals.removeAll()
                entry.pausedUntil = nil
                entry.nextProbe = nil
            }
            let waiter = entry.waiters.isEmpty ? nil : entry.waiters.removeFirst().continuation
            state.origins[ticket.origin] = entry.isIdle ? nil : entry
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// Waits until a send of `origin` (proven, at its bound) finishes, for at most `timeout`: a room of one
    /// push service's subscriptions goes at that service's pace instead of being turned away and claimed
    /// again, while an origin that stops answering holds a waiting send (and its sending slot) no longer than
    /// `timeout`. Returns at once when the origin has a free slot by then.
    /// - Returns: true when a slot came free (the caller admits itself again), false after `timeout`.
    func waitForSlot(_ origin: String, upTo timeout: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLock { state -> UInt64? in
                guard var entry = state.origins[origin], entry.inFlight >= maxInFlight else { return nil }
                state.nextWaiter &+= 1
                entry.waiters.append((state.nextWaiter, continuation))
                state.origins[origin] = entry
                return state.nextWaiter
            }
            guard let id else { return continuation.resume(returning: true) }
            Task {
                try? await Task.sleep(for: timeout)
                self.giveUp(waiter: id, of: origin)
            }
        }
    }

    /// Ends the wait of waiter `id` with false, unless ``finish(_:accepted:now:)`` woke it already.
    private func giveUp(waiter id: UInt64, of origin: String) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard var entry = state.origins[origin], let index = entry.waiters.firstIndex(where: { $0.id == id })
            else { return nil }
            let continuation = entry.waiters.remove(at: index).continuation
            state.origins[origin] = entry.isIdle ? nil : entry
            return continuation
        }
        continuation?.resume(returning: false)
    }

    /// Counts a 403 of subscription `subscription` (its device token) of `origin` at `now`.
    /// - Returns: the pause's end when this refusal paused the origin, else nil.
    func refused(_ origin: String, subscription: String, now: Date) -> Date? {
        state.withLock { state in
            var entry = state.origins[origin] ?? Origin()
            let oldest = now - pause.window.timeInterval
            entry.refusals = entry.refusals.filter { $0.value > oldest }
            entry.refusals[subscription] = now
            // A push accepted within the window shows the service takes the relay's key: these refusals are
            // of the subscriptions (made for another key), not of the relay.
            let acceptedLately = entry.acceptedAt.map { $0 > oldest } ?? false
            var paused: Date?
            if entry.refusals.count >= pause.refusals, entry.pausedUntil == nil, !acceptedLately {
                let until = now + pause.duration.timeInterval
                entry.pausedUntil = until
                entry.nextProbe = now + pause.probeInterval.timeInterval
                entry.refusals.removeAll()
                paused = until
            }
            state.origins[origin] = entry
            if state.origins.count > Self.maxOrigins { Self.prune(&state, now: now, provenFor: limits.provenFor) }
            return paused
        }
    }

    /// The sends waiting for a slot of `origin`.
    func waiting(_ origin: String) -> Int { state.withLock { $0.origins[origin]?.waiters.count ?? 0 } }

    /// Forgets what no longer matters (aged refusals, ended pauses, old acceptances), then, when still over
    /// ``maxOrigins``, the origins without requests in flight that were accepted longest ago.
    private static func prune(_ state: inout State, now: Date, provenFor: Duration) {
        state.origins = state.origins.compactMapValues { value in
            var value = value
            if let until = value.pausedUntil, until <= now {
                value.pausedUntil = nil
                value.nextProbe = nil
            }
            if let accepted = value.acceptedAt, now.timeIntervalSince(accepted) >= provenFor.timeInterval {
                value.acceptedAt = nil
            }
            if value.pausedUntil == nil { value.refusals.removeAll() }
            return value.isIdle ? nil : value
        }
        let excess = state.origins.count - maxOrigins
        guard excess > 0 else { return }
        let idle = state.origins.filter { $0.value.inFlight == 0 }
            .sorted { ($0.value.acceptedAt ?? .distantPast) < ($1.value.acceptedAt ?? .distantPast) }
        for (origin, _) in idle.prefix(excess) { state.origins[origin] = nil }
    }
}
