import Foundation
import RelayCore

extension RelayMetrics {
    /// One delivery attempt's outcome (`sent`, `retry`, `failed`, `retired`, `unlinked`) and the service's
    /// reason, for its app and its device's platform.
    public func recordOutcome(_ outcome: String, reason: String, app: String, platform: Platform) {
        let key = Outcome(
            app: appLabel(app),
            platform: platform,
            outcome: outcome,
            reason: MetricLabels.reason(reason, known: reasons)
        )
        let reached = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.outcomes[key, default: 0] += 1
            state.attemptsDecided += 1
            guard state.attemptsDecided >= state.firstAwaitedCount else { return [] }
            let decided = state.attemptsDecided
            let ids = state.attemptWaiters.filter { $0.value.count <= decided }.map(\.key)
            return ids.compactMap { state.attemptWaiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in reached { continuation.resume() }
    }

    /// A push service's answer to one attempt: the time it took (`pushrelay_push_duration_seconds`) and, for
    /// an answer that ended the delivery, the SECONDS since the notification was due: accepted (webhook or
    /// Ditto event committed), plus its app's grace window (`pushrelay_accepted_to_answered_seconds`).
    public func recordAnswer(took duration: Duration, dueSecondsAgo: Double?, app: String, platform: Platform) {
        let series = Series(app: appLabel(app), platform: platform)
        // In place: taking the histograms out and putting them back would copy their buckets every time.
        state.withLock { state in
            Self.observe(&state.answers[series, default: Answers()], duration, dueSecondsAgo)
        }
    }

    private static func observe(_ answers: inout Answers, _ duration: Duration, _ dueSecondsAgo: Double?) {
        answers.duration.observe(duration.timeInterval)
        if let dueSecondsAgo { answers.acceptedToAnswered.observe(max(0, dueSecondsAgo)) }
    }

    /// Delivery attempts decided so far, whatever their outcome (``recordOutcome(_:reason:app:platform:)``
    /// calls).
    public var attemptsDecided: Int { state.withLock { $0.attemptsDecided } }

    /// Returns once ``attemptsDecided`` is at least `count`, or when the task is cancelled: for benchmarks and
    /// tests that wait for a fan-out's last push without polling (a poll wakes a thread on the cores the
    /// sends need, or sees the end late).
    public func waitUntilAttemptsDecided(_ count: Int) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterId += 1
            return state.nextWaiterId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = state.withLock { state -> Bool in
                    guard state.attemptsDecided < count, !Task.isCancelled else { return false }
                    state.attemptWaiters[id] = (count, continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.attemptWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
