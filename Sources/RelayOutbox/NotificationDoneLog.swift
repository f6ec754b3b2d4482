import Foundation
import RelayCore
import RelayStore
import Synchronization

/// The info line per notification once none of its deliveries is pending any more (`notification done`,
/// with its deliveries counted by outcome), instead of a line per push (those are at `debug`).
///
/// Found by batched counts: ONE store call counts the deliveries of the notifications that final results
/// recorded since the last count belong to (``NotificationDoneReports``), and those with none pending are
/// logged. A count that fails logs a warning, and its notifications are counted again with the next one. A
/// notification whose last deliveries end on two relays at once may be logged by both.
struct NotificationDoneLog: Sendable {
    let store: any Store
    let logger: Logger

    /// Whether info lines are logged: when not, nothing is asked of the store.
    var logs: Bool { Logger.Level.info >= logger.level }

    /// Logs each notification of `apps` (by id, its app's id) that is done; returns their ids, nil when the
    /// count failed (a warning is logged; none of them was looked at).
    @discardableResult
    func report(_ apps: [UUID: String]) async -> [UUID]? {
        guard !apps.isEmpty, logs else { return [] }
        let finished: [UUID: DeliveryCounts]
        do {
            finished = try await store.finishedNotificationCounts(Array(apps.keys))
        } catch {
            logger.storeCallFailed("counting the deliveries of finished notifications failed", error, level: .warning)
            return nil
        }
        for (id, counts) in finished.sorted(by: { $0.key.lowercasedString < $1.key.lowercasedString }) {
            logger.info(
                "notification done",
                [
                    "app.id": apps[id] ?? "", "notification.id": id.lowercasedString,
                    "deliveries.sent": counts.sent, "deliveries.failed": counts.failed,
                    "deliveries.retired": counts.retired, "deliveries.cancelled": counts.cancelled,
                ]
            )
        }
        return Array(finished.keys)
    }
}

/// Runs ``NotificationDoneLog/report(_:)`` beside the flusher, so the flusher writes its next batch instead
/// of waiting for the count: it hands each recorded batch's ended notifications over (``add(_:)``), and one
/// report at a time runs with all that were handed over since the one before (each notification once).
/// Reports start at most once an ``interval``: a fan-out records a batch of results every few milliseconds,
/// and a report per batch would put a store transaction beside each batch's for a line that may come a
/// moment later. A report may already see a notification done whose last results the batch written
/// meanwhile holds; that batch's report, the next one, leaves out what the one before logged (no later batch
/// holds the notification, as none of its deliveries is pending).
final class NotificationDoneReports: Sendable {
    private struct State {
        /// Notifications to look at, by id: their app's id.
        var pending: [UUID: String] = [:]
        var running: Task<Void, Never>?
        /// The notifications the last report logged.
        var lastLogged: Set<UUID> = []
        /// ``finish()`` was called: the reports left run without a pause.
        var finishing = false
    }
    private let log: NotificationDoneLog
    /// The least time from one report's start to the next one's.
    let interval: Duration
    /// The least time from a report whose count failed to the next one: a store that cannot answer is asked
    /// (and a warning logged) every few seconds, not four times a second.
    let retryInterval: Duration
    private let state = Mutex(State())
    /// Ends a pause between reports early, at ``finish()``.
    private let pause = WakeSignal()

    init(_ log: NotificationDoneLog, interval: Duration = .milliseconds(250), retryInterval: Duration = .seconds(5)) {
        self.log = log
        self.interval = interval
        self.retryInterval = retryInterval
    }

    /// Hands over the notifications of a recorded batch's final results; returns at once.
    func add(_ ended: [ResultBuffer.Ended]) {
        guard !ended.isEmpty, log.logs else { return }
        state.withLock { state in
            for (appId, notificationId) in ended { state.pending[notificationId] = appId }
            guard state.running == nil else { return }
            state.running = Task { await self.drain() }
        }
    }

    /// Returns once every notification handed over so far was looked at.
    func finish() async {
        state.withLock { $0.finishing = true }
        pause.signal()
        while let running = state.withLock({ $0.running }) { await running.value }
    }

    /// Reports what was handed over until nothing is left, a report at most once an ``interval``.
    private func drain() async {
        while true {
            let started = ContinuousClock.now
            let apps = state.withLock { state in
                let apps = state.pending.filter { !state.lastLogged.contains($0.key) }
                state.pending = [:]
                if apps.isEmpty { state.running = nil }
                return apps
            }
            guard !apps.isEmpty else { return }
            let logged = await log.report(apps)
            state.withLock { state in
                guard let logged else {
                    // Counted again with the next report, until the relay stops (then they are left: a stop
                    // does not wait for a store that cannot answer).
                    if !state.finishing { state.pending.merge(apps) { later, _ in later } }
                    return
                }
                state.lastLogged = Set(logged)
            }
            let rest = started + (logged == nil ? retryInterval : interval) - ContinuousClock.now
            if rest > .zero, !state.withLock({ $0.finishing }) { await pause.wait(timeout: rest) }
        }
    }
}
