import Foundation
import Synchronization

/// Where time comes from, injected so provider-token refresh and back-off are tested without sleeping.
public protocol TimeSource: Sendable {
    /// A monotonic reading: only differences mean anything. Never goes back when the wall clock is set.
    var monotonic: Duration { get }
    /// Wall-clock time (for `iat`, `apns-expiration`, timestamps stored).
    var now: Date { get }
}

/// The machine's clocks: `ContinuousClock` for ``monotonic``, `Date()` for ``now``.
public struct SystemTimeSource: TimeSource {
    private static let origin = ContinuousClock.now
    public init() {}
    public var monotonic: Duration { ContinuousClock.now - Self.origin }
    public var now: Date { Date() }
}

/// A clock that moves only when told to: ``advance(by:)`` moves both readings together.
public final class ManualTimeSource: TimeSource {
    private let state: Mutex<(monotonic: Duration, now: Date)>
    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) { state = Mutex((.zero, now)) }
    public var monotonic: Duration { state.withLock { $0.monotonic } }
    public var now: Date { state.withLock { $0.now } }
    /// Moves time forward.
    public func advance(by duration: Duration) {
        state.withLock {
            $0.monotonic += duration
            $0.now += duration.timeInterval
        }
    }
}
