import Synchronization

/// How many lines of one kind a log takes: at most ``limit`` in each ``interval``; the rest are counted, and
/// the first line let through in a later interval carries how many were left out, so a flood of requests
/// writes a bounded number of lines a second and still says how big it was.
public final class LogBudget: Sendable {
    /// What to do with one line.
    public enum Decision: Sendable, Equatable {
        /// Write it; `suppressedBefore` lines were left out since the last report (write that first when
        /// it is not 0).
        case log(suppressedBefore: Int)
        /// Leave it out (it is counted).
        case suppress
    }

    private struct State {
        var windowStart: ContinuousClock.Instant?
        var used = 0
        var suppressed = 0
    }

    /// Lines let through in one interval.
    public let limit: Int
    /// The length of an interval.
    public let interval: Duration
    private let state = Mutex(State())

    /// - Parameters:
    ///   - limit: lines let through in one interval; at least 1.
    ///   - interval: the length of an interval.
    public init(limit: Int, interval: Duration) {
        precondition(limit >= 1, "a log budget lets at least one line through")
        self.limit = limit
        self.interval = interval
    }

    /// Whether the line that comes at `now` is written.
    public func admit(at now: ContinuousClock.Instant = .now) -> Decision {
        state.withLock { state in
            var report = 0
            if state.windowStart.map({ now - $0 >= interval }) ?? true {
                state.windowStart = now
                state.used = 0
                report = state.suppressed
                state.suppressed = 0
            }
            guard state.used < limit else {
                state.suppressed += 1
                return .suppress
            }
            state.used += 1
            return .log(suppressedBefore: report)
        }
    }

    /// The lines left out and not reported yet, now counted as reported (for a last report at shutdown).
    public func takeSuppressed() -> Int {
        state.withLock { state in
            defer { state.suppressed = 0 }
            return state.suppressed
        }
    }
}
