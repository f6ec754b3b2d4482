import Foundation
import RelayCore
import RelayStore

/// A ``DittoMirror`` of this test target's own, which records each batch it is given and fails while told
/// to. The real stores' conformances are written beside this consumer (and their behaviour belongs in the
/// store conformance suite); these tests are about the consumer's commit and offset logic, for which a
/// recorder shows exactly what was applied and when.
actor RecordingMirror: DittoMirror {
    private(set) var applied: [DittoEvent] = []
    private(set) var failures = 0
    private var failing = false

    func setFailing(_ failing: Bool) { self.failing = failing }

    func applyDittoEvents(
        _ events: [DittoEvent],
        appId: String,
        settings: DittoApplySettings,
        at: Date
    ) async throws -> DittoApplyCounts {
        if failing {
            failures += 1
            throw StoreError(code: .io, message: "test: the store is unavailable")
        }
        applied += events
        var counts = DittoApplyCounts()
        counts.applied = events.count
        counts.outcomes["\(DittoCollections.Kind.users)"] = [.applied: events.count]
        return counts
    }
}
