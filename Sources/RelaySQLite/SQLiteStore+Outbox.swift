import Foundation
import RelayStore

extension SQLiteStore {
    public nonisolated func outboxCounts(now: Date) async throws -> [String: OutboxCounts] {
        try await gaugeScans.outboxCounts(now: now)
    }
}
