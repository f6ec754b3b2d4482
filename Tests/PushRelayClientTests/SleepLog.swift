import Foundation
import Synchronization

/// The waits a client asked for between attempts, in seconds. It really waits (so the retry happens as it
/// would in an app), after running `beforeWaking` when set (e.g. to bring a stopped front back).
final class SleepLog: Sendable {
    private let waits = Mutex<[TimeInterval]>([])
    private let beforeWaking: (@Sendable () async throws -> Void)?

    init(beforeWaking: (@Sendable () async throws -> Void)? = nil) {
        self.beforeWaking = beforeWaking
    }

    /// Each wait so far, in order.
    var seconds: [TimeInterval] { waits.withLock { $0 } }

    var sleep: @Sendable (TimeInterval) async throws -> Void {
        { [self] seconds in
            waits.withLock { $0.append(seconds) }
            try await beforeWaking?()
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        }
    }
}
