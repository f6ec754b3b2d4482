import Foundation
import RelayStore

extension SQLiteStore {
    /// The gauges' scans run in ``SQLiteGaugeScans``, beside the store's thread.
    public nonisolated var countsGaugesApart: Bool { true }

    public nonisolated func outboxCounts(now: Date) async throws -> [String: OutboxCounts] {
        try await gaugeScans.outboxCounts(now: now)
    }
}
