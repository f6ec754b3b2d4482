import Foundation
import Synchronization

/// What one app's sends to each push service origin may do: a bound on the requests in flight to one origin
/// (any site can run a push service, and a slow one must not hold every slot), and the pause of an origin
/// that refused the app's VAPID credentials (403) for several distinct subscriptions within a window, so
/// the relay stops knocking for a while. Never the app: other origins go on.
///
/// Memory stays bounded: an origin is kept only while it has requests in flight, recent refusals or a
/// pause, and the refusals kept per origin never exceed the count that pauses it.
final class OriginGuard: Sendable {
    /// Whether a send to an origin may go.
    enum Admission: Equatable {
        /// Go, and call ``finish(_:)`` when done.
        case send
        /// The origin has its most requests in flight.
        case busy
        /// The origin is paused until then.
        case paused(until: Date)
    }

    private struct Origin {
        var inFlight = 0
        /// Distinct subscriptions that refused, with when.
        var refusals: [String: Date] = [:]
        var pausedUntil: Date?

        var isIdle: Bool { inFlight == 0 && refusals.isEmpty && pausedUntil == nil }
    }

    private let maxInFlight: Int
    private let pause: WebPushClientConfiguration.OriginPause
    private let origins = Mutex<[String: Origin]>([:])

    init(maxInFlight: Int, pause: WebPushClientConfiguration.OriginPause) {
        self.maxInFlight = maxInFlight
        self.pause = pause
    }

    /// Takes a slot of `origin` for a send at `now`, unless it is paused or full.
    func admit(_ origin: String, now: Date) -> Admission {
        origins.withLock { origins in
            var entry = origins[origin] ?? Origin()
            if let until = entry.pausedUntil {
                if until > now { return .paused(until: until) }
                entry.pausedUntil = nil
            }
            guard entry.inFlight < maxInFlight else { return .busy }
            entry.inFlight += 1
            origins[origin] = entry
            return .send
        }
    }

    /// Gives back the slot ``admit(_:now:)`` took.
    func finish(_ origin: String) {
        origins.withLock { origins in
            guard var entry = origins[origin] else { return }
            entry.inFlight = max(0, entry.inFlight - 1)
            origins[origin] = entry.isIdle ? nil : entry
        }
    }

    /// Counts a 403 of subscription `subscription` (its device token) of `origin` at `now`.
    /// - Returns: the pause's end when this refusal paused the origin, else nil.
    func refused(_ origin: String, subscription: String, now: Date) -> Date? {
        origins.withLock { origins in
            var entry = origins[origin] ?? Origin()
            let oldest = now - pause.window.timeInterval
            entry.refusals = entry.refusals.filter { $0.value > oldest }
            entry.refusals[subscription] = now
            var paused: Date?
            if entry.refusals.count >= pause.refusals {
                let until = now + pause.duration.timeInterval
                entry.pausedUntil = until
                entry.refusals.removeAll()
                paused = until
            }
            origins[origin] = entry
            // Drop refusals that aged out of other origins, so users' origins do not pile up.
            if origins.count > 1024 {
                origins = origins.compactMapValues { value in
                    var value = value
                    value.refusals = value.refusals.filter { $0.value > oldest }
                    if let until = value.pausedUntil, until <= now { value.pausedUntil = nil }
                    return value.isIdle ? nil : value
                }
            }
            return paused
        }
    }
}
