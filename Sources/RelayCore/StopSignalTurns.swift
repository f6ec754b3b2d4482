/// What each stop signal a ``ServiceGroup`` catches asks for, by when it comes: the first begins the
/// graceful shutdown, one during the shutdown ends it at once, but one within ``repeatWindow`` of the signal
/// that began it is that signal again and asks for nothing (`timeout(1)` signals the process and its process
/// group, so a relay it runs gets one SIGTERM twice).
package struct StopSignalTurns: Sendable {
    package enum Verdict: Sendable, Equatable {
        /// Begin the graceful shutdown.
        case begin
        /// The signal that began the shutdown, delivered again: nothing to do.
        case repeated
        /// Stop at once (``ServiceGroup/Escalation``).
        case escalate
    }

    /// How long after the signal that began the shutdown another one counts as the same.
    package static let repeatWindow = Duration.seconds(1)

    /// When the signal that began the shutdown came; nil before one did.
    private var began: ContinuousClock.Instant?

    package init() {}

    /// The verdict on a signal caught at `now`; `shuttingDown` tells whether the shutdown began already (a
    /// service that ended, or ``ServiceGroup/triggerGracefulShutdown()``, begins one without a signal).
    package mutating func verdict(at now: ContinuousClock.Instant, shuttingDown: Bool) -> Verdict {
        if let began { return now - began < Self.repeatWindow ? .repeated : .escalate }
        if shuttingDown { return .escalate }
        began = now
        return .begin
    }
}
