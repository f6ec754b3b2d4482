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
    /// What the lines are, as the report of those left out names them (`refused requests`).
    public let lines: String
    private let state = Mutex(State())

    /// - Parameters:
    ///   - limit: lines let through in one interval; at least 1.
    ///   - interval: the length of an interval.
    ///   - lines: what the lines are, for ``admit(reporting:at:)`` and ``flush(to:)``.
    public init(limit: Int, interval: Duration, lines: String = "lines") {
        precondition(limit >= 1, "a log budget lets at least one line through")
        self.limit = limit
        self.interval = interval
        self.lines = lines
    }

    /// Whether the line that comes at `now` is written; when it is, the lines left out before it are first
    /// reported to `logger` (``report(_:to:)``).
    public func admit(reporting logger: Logger, at now: ContinuousClock.Instant = .now) -> Bool {
        guard case .log(let leftOut) = admit(at: now) else { return false }
        report(leftOut, to: logger)
        return true
    }

    /// Reports the lines left out and not reported yet (at a stop, when no later line will).
    public func flush(to logger: Logger) { report(takeSuppressed(), to: logger) }

    /// A `<lines> not logged` warning with the count and the budget, when any were left out.
    private func report(_ count: Int, to logger: Logger) {
        guard count > 0 else { return }
        logger.warning("\(lines) not logged", ["count": count, "budget_per_second": limit])
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

/// A handler that passes at most a budget of lines (``LogBudget``) to another and counts the rest, reported in
/// the next line let through (or by ``LogBudget/flush(to:)``): for lines whose number follows what others do,
/// such as a line per failed push attempt, which a user's dead subscriptions multiply by everyone's messages.
public struct BudgetedLogHandler: Logger.Handler {
    public let budget: LogBudget
    private let inner: any Logger.Handler

    public init(_ inner: any Logger.Handler, budget: LogBudget) {
        self.inner = inner
        self.budget = budget
    }

    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        guard budget.admit(reporting: Logger(label: label, level: .trace, handler: inner)) else { return }
        inner.log(level: level, label: label, message: message, metadata: metadata)
    }
}
