import RelayCore
import Synchronization

/// Whether the store answers, logged once when that changes: an error when storage goes away (a call failed
/// for I/O: unreachable, frozen past the statement deadline, or locked past the busy timeout) and a notice
/// when it is back, never a line per call. A request refused for finding no connection free by its deadline
/// is not a sign of either: behind one long call (a large room's webhook on SQLite's one connection) the
/// store is busy, and on a frozen server the calls holding the connections fail at the statement deadline.
/// Back means a call answered with none failing for ``settle``: on a full disk reads still answer while every
/// write fails, and a read is no sign that the writes work again.
///
/// A call that finds the store damaged (``StoreError/Code/corrupt``: a page SQLite cannot read, PostgreSQL's
/// data or index corruption) marks it ``damage``, logged once at error: whichever call meets the damaged page
/// (a claim, a result, an API read), nothing the relay does mends it, so it stays until the relay restarts on
/// a restored or repaired store, and ``StorePool`` starts no call meanwhile.
public final class StorageHealth: Sendable {
    private struct State {
        var up = true
        /// When the last call failed for I/O (``TimeSource/monotonic``).
        var lastFailure: Duration?
        var damage: StoreError?
    }
    private let state = Mutex(State())
    /// Set for the calls of a task that counts whole tables (the outbox figures' reporter, `StoreGaugeReporter`): such
    /// a call running past its statement deadline under a large outbox says the store is loaded, not away, so
    /// its failures for I/O are not recorded. The storage probe's and every other call's still are, so an
    /// outage is told as soon; damage found by any call is.
    @TaskLocal public static var counting = false
    private let logger: Logger
    private let time: any TimeSource
    /// How long calls answer without one failing before storage counts as back.
    let settle: Duration

    public init(logger: Logger, settle: Duration = .seconds(5), time: any TimeSource = SystemTimeSource()) {
        self.logger = logger
        self.settle = settle
        self.time = time
    }

    /// Whether storage counts as there (true until a call fails for I/O).
    public var up: Bool { state.withLock { $0.up } }

    /// The first failure that found the store damaged, if a call has met one.
    public var damage: StoreError? { state.withLock { $0.damage } }

    /// Notes a call's outcome: `error` nil when it answered. Errors of the call itself (a constraint, a
    /// conflict) say nothing about the storage being there; damage does (``damage``).
    public func record(_ error: (any Error)?) {
        if let error = error as? StoreError, error.meansDamage { return recordDamage(error) }
        if let error, !Self.isOutage(error) || Self.counting { return }
        let changed = state.withLock { state -> Bool in
            let now = time.monotonic
            if error != nil {
                state.lastFailure = now
                defer { state.up = false }
                return state.up
            }
            guard !state.up, state.lastFailure.map({ now - $0 >= settle }) ?? true else { return false }
            state.up = true
            return true
        }
        guard changed else { return }
        if let error {
            // At error, as a push service that does not answer is: no message can be accepted meanwhile.
            logger.error("storage unavailable", ["error": "\(error)"])
        } else {
            logger.notice("storage available again")
        }
    }

    private func recordDamage(_ error: StoreError) {
        let first = state.withLock { state -> Bool in
            guard state.damage == nil else { return false }
            state.damage = error
            return true
        }
        guard first else { return }
        logger.error(
            "storage damaged: the relay makes no more calls of it and is not ready until it restarts on a "
                + "restored or repaired store",
            ["error": "\(error)"]
        )
    }

    /// Whether `error` is storage being away (``StoreError/meansStorageAway``).
    public static func isOutage(_ error: any Error) -> Bool {
        (error as? StoreError)?.meansStorageAway == true
    }

    /// Whether this type logs `error` once (storage away, or damaged): a loop that meets it at every turn
    /// logs it at debug instead of a line a turn for as long as it lasts.
    public static func logsOnce(_ error: any Error) -> Bool {
        isOutage(error) || (error as? StoreError)?.meansDamage == true
    }
}
