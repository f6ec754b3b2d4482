import Foundation
import RelayCore
import RelayStore

/// A ``DittoMirror`` of this test target's own, which records each batch it is given, fails while told
/// to, reads events it is told of as unreadable messages, and refuses (as a transaction does: nothing of it applied) every batch holding an event it is told
/// it cannot keep. The real stores' conformances are written beside this consumer (and their behaviour belongs in the
/// store conformance suite); these tests are about the consumer's commit and offset logic, for which a
/// recorder shows exactly what was applied and when.
actor RecordingMirror: DittoMirror {
    private(set) var applied: [DittoEvent] = []
    /// How many events each apply that succeeded held.
    private(set) var batchSizes: [Int] = []
    private(set) var failures = 0
    private var failing = false
    private var refused: Set<UInt64> = []
    private var unreadable: Set<UInt64> = []

    func setFailing(_ failing: Bool) { self.failing = failing }

    /// Whether an apply waits for ``release(holding:)`` before it answers, as one waits on a locked store.
    private var holding = false
    private var held: [CheckedContinuation<Void, Never>] = []
    /// How many applies reached the hold, and how many wait there now.
    private(set) var holds = 0
    var waiting: Int { held.count }

    func hold() { holding = true }

    /// Lets the applies waiting go on; with `holding` the next ones wait again.
    func release(holding: Bool) {
        self.holding = holding
        for continuation in held { continuation.resume() }
        held = []
    }

    /// The txnIds of the events the mirror refuses for their data, as PostgreSQL refuses a value it
    /// cannot keep.
    func setRefused(_ txnIds: Set<UInt64>) { refused = txnIds }

    /// The txnIds of the events the mirror counts as messages without a `text` it can read.
    func setUnreadable(_ txnIds: Set<UInt64>) { unreadable = txnIds }

    func applyDittoEvents(
        _ events: [DittoEvent],
        appId: String,
        settings: DittoApplySettings,
        at: Date
    ) async throws -> DittoApplyCounts {
        if holding {
            holds += 1
            await withCheckedContinuation { held.append($0) }
        }
        if failing {
            failures += 1
            throw StoreError(code: .io, message: "test: the store is unavailable")
        }
        if events.contains(where: { refused.contains($0.txnId) }) {
            failures += 1
            throw StoreError(code: .invalidData, message: "test: a value the store cannot keep")
        }
        applied += events
        batchSizes.append(events.count)
        var counts = DittoApplyCounts()
        counts.applied = events.count
        counts.outcomes["\(DittoCollections.Kind.users)"] = [.applied: events.count]
        if let index = events.firstIndex(where: { unreadable.contains($0.txnId) }) {
            counts.unreadable = DittoUnreadable(event: index, field: "text")
            counts.outcomes["\(DittoCollections.Kind.messages)"] = [
                .invalid: events.count { unreadable.contains($0.txnId) }
            ]
        }
        return counts
    }
}
