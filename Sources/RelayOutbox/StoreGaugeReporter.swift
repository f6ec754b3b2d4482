import Foundation
import RelayCore
import RelayStore
import Synchronization

/// Reports the store's figures as gauges: each app's outbox (pending, due, leased, the oldest due
/// delivery's lateness), devices by state and feedback pending. They count the whole database, so of several
/// relays on one store only one reports them, and `sum()` over relays is right: the holder of the store's
/// periodic lease ``job`` (``RelayStore/Store/holdPeriodicLease(job:owner:now:duration:)``), renewed every
/// ``interval`` and held for three of them, so another relay takes over when the holder stops or dies. The
/// holder shows `pushrelay_outbox_reporter` 1, every other relay 0 and none of the figures.
///
/// Runs as a service; a scrape never waits on it. A failed read keeps the figures last read (the storage
/// probe's `pushrelay_storage_up` says the store is down) while the lease they were read under lasts; past
/// it the relay steps down (`pushrelay_outbox_reporter` 0, no figures): it holds the lease no longer, so
/// through an outage longer than the lease no relay shows itself the reporter. A stop gives the lease up
/// for the next relay. The counts are no evidence of storage away (``RelayStore/StorageHealth/counting``): one
/// past its statement deadline under a large outbox says the store is loaded.
public final class StoreGaugeReporter: Service {
    /// The periodic lease's name in the store.
    public static let job = "store-gauges"
    private static let figures = [
        MetricCatalog.outboxPending, MetricCatalog.outboxDue, MetricCatalog.outboxLeased,
        MetricCatalog.outboxOldestAge, MetricCatalog.devices, MetricCatalog.feedbackPending,
    ]

    private let owner: String
    private let store: any Store
    private let metrics: RelayMetrics
    private let appIds: [String]
    private let time: any TimeSource
    private let logger: Logger
    /// How often the figures are read (and the lease renewed).
    public let interval: Duration
    /// How long a lease taken lasts: three ``interval``s.
    private var lease: Duration { interval * 3 }
    /// Whether this relay shows itself the reporter, until when (on the monotonic clock) the lease it last
    /// took lasts (set by each ``refresh()`` that takes it, cleared by stepping down), and whether the last
    /// refresh failed.
    private let held = Mutex((reporting: false, until: Duration.zero, failing: false))

    /// - Parameters:
    ///   - owner: the relay's instance id, which the lease names.
    ///   - appIds: the configured apps, each reported (at zero when it has nothing pending).
    ///   - interval: how often the figures are read. Default 10 s (the storage probe runs every second).
    public init(
        owner: String,
        store: any Store,
        metrics: RelayMetrics,
        appIds: [String],
        time: any TimeSource,
        logger: Logger,
        interval: Duration = .seconds(10)
    ) {
        self.owner = owner
        self.store = store
        self.metrics = metrics
        self.appIds = appIds
        self.time = time
        self.logger = logger
        self.interval = interval
    }

    /// Reads the figures every ``interval`` while it holds the lease, and steps down when the lease it last
    /// took ends unrenewed, until cancelled; then gives the lease up.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.stepDownWhenTheLeaseEnds() }
            await refreshUntilCancelled()
            group.cancelAll()
        }
        guard held.withLock({ $0.reporting }) else { return }
        _ = try? await store.holdPeriodicLease(job: Self.job, owner: owner, now: time.now, duration: .zero)
        stepDown()
    }

    private func refreshUntilCancelled() async {
        while !Task.isCancelled {
            do {
                try await refresh()
                if setFailing(false) { logger.notice("store figures read again") }
            } catch {
                if !setFailing(true) { logger.warning("reading the store's figures failed", ["error": "\(error)"]) }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Records whether the last refresh failed; returns whether the one before had.
    private func setFailing(_ failing: Bool) -> Bool {
        held.withLock { held in
            defer { held.failing = failing }
            return held.failing
        }
    }

    /// Steps down once the lease this relay last took has run out while its refreshes fail, when it does
    /// (a failing refresh may take a statement's deadline to say so; another relay may take the lease from
    /// its end on). A refresh that is merely slow, on a busy host, is no outage: its renewal follows.
    private func stepDownWhenTheLeaseEnds() async {
        while !Task.isCancelled {
            // Checked and stepped down under one lock, so a renewal in between is never undone.
            let wait = held.withLock { held -> Duration? in
                let left = held.until - time.monotonic
                guard held.reporting, held.failing else { return interval }
                guard left <= .zero else { return min(interval, left) }
                stepDown(&held)
                return nil
            }
            if let wait { try? await Task.sleep(for: wait) }
        }
    }

    /// Takes or renews the lease and, holding it, reads and publishes the figures (a relay's start calls it
    /// once before it listens, so its first scrape has them).
    /// - Returns: whether this relay holds the lease.
    /// - Throws: the store's error; the figures last read stay.
    @discardableResult
    public func refresh() async throws -> Bool {
        let asked = time.monotonic
        guard try await store.holdPeriodicLease(job: Self.job, owner: owner, now: time.now, duration: lease) else {
            stepDown()
            return false
        }
        held.withLock {
            $0.reporting = true
            $0.until = asked + lease
        }
        let now = time.now
        let (outbox, devices, feedback) = try await StorageHealth.$counting.withValue(true) {
            let outbox = try await store.outboxCounts(now: now)
            return (outbox, try await store.deviceCounts(), try await store.pendingFeedbackCount())
        }
        var byApp = Dictionary(uniqueKeysWithValues: appIds.map { ($0, OutboxCounts()) })
        for (app, counts) in outbox {
            var sum = byApp[metrics.appLabel(app)] ?? OutboxCounts()
            sum.pending += counts.pending
            sum.due += counts.due
            sum.leased += counts.leased
            sum.oldestDueAt = [sum.oldestDueAt, counts.oldestDueAt].compactMap { $0 }.min()
            byApp[metrics.appLabel(app)] = sum
        }
        // Published under the lease's lock, unless the watch stepped down meanwhile (the refreshes failed
        // past the lease's end). A refresh that is only slow publishes when it ends, a little past its lease
        // at worst: its renewal came first.
        return held.withLock { held in
            guard held.reporting else { return false }
            publish(byApp: byApp, devices: devices, feedback: feedback, now: now)
            return true
        }
    }

    private func publish(byApp: [String: OutboxCounts], devices: [DeviceState: Int], feedback: Int, now: Date) {
        func samples(_ value: (OutboxCounts) -> Double) -> [RelayMetrics.GaugeSample] {
            byApp.map { ([("app", $0.key)], value($0.value)) }
        }
        metrics.setGauges(MetricCatalog.outboxPending, samples { Double($0.pending) })
        metrics.setGauges(MetricCatalog.outboxDue, samples { Double($0.due) })
        metrics.setGauges(MetricCatalog.outboxLeased, samples { Double($0.leased) })
        metrics.setGauges(
            MetricCatalog.outboxOldestAge,
            samples { counts in counts.oldestDueAt.map { max(0, now.timeIntervalSince($0)) } ?? 0 }
        )
        metrics.setGauges(
            MetricCatalog.devices,
            DeviceState.allCases.map { ([("state", $0.rawValue)], Double(devices[$0] ?? 0)) }
        )
        metrics.setGauges(MetricCatalog.feedbackPending, [([], Double(feedback))])
        metrics.setGauges(MetricCatalog.outboxReporter, [([], 1)])
    }

    /// Shows none of the figures: another relay reports them.
    private func stepDown() { held.withLock { stepDown(&$0) } }

    /// ``stepDown()`` with the lease's lock held.
    private func stepDown(_ held: inout (reporting: Bool, until: Duration, failing: Bool)) {
        held.reporting = false
        for name in Self.figures { metrics.removeGauges(name) }
        metrics.setGauges(MetricCatalog.outboxReporter, [([], 0)])
    }
}
