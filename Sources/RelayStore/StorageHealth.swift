import RelayCore
import Synchronization

/// Whether the store answered its last call, logged once when that changes: a warning when storage goes
/// away (a call failed for I/O: unreachable, frozen past the statement deadline, or no connection free by a
/// request's deadline) and a notice when it is back (a call answered), never a line per call.
public final class StorageHealth: Sendable {
    private let isUp = Mutex(true)
    private let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    /// Whether the last call answered (true until one fails).
    public var up: Bool { isUp.withLock { $0 } }

    /// Notes a call's outcome: `error` nil when it answered. Errors of the call itself (a constraint, a
    /// conflict) say nothing about the storage being there.
    public func record(_ error: (any Error)?) {
        let down: Bool
        if let error {
            guard let storeError = error as? StoreError, Self.meansDown(storeError) else { return }
            down = true
        } else {
            down = false
        }
        let changed = isUp.withLock { isUp in
            defer { isUp = !down }
            return isUp == down
        }
        guard changed else { return }
        if let error {
            logger.warning("storage unavailable", ["error": "\(error)"])
        } else {
            logger.notice("storage available again")
        }
    }

    /// Whether `error` says the storage cannot be reached or did not answer in time.
    static func meansDown(_ error: StoreError) -> Bool {
        error.code == .io || error.code == .unavailable
    }
}
