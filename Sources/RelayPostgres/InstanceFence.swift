import RelayCore
import RelayStore
import Synchronization

/// Whether the relay lost its instance lock to another process: shared by every connection of a relay's
/// stores (``PostgresStore/pool(url:size:logger:timeSource:statementTimeout:onFenced:)``), which refuse
/// every statement once it is set, so a relay never goes on leasing under an id another relay holds.
///
/// Set when a session opened after a lost connection cannot take the instance's advisory lock back
/// (``PostgresConnection``): another process took it while the connection was down. Never cleared.
final class InstanceFence: Sendable {
    private let error = Mutex<StoreError?>(nil)
    private let logger: Logger
    /// Called once, when the fence is set (the serve command ends the process).
    private let onFenced: @Sendable (StoreError) -> Void

    init(logger: Logger = .disabled(), onFenced: @escaping @Sendable (StoreError) -> Void = { _ in }) {
        self.logger = logger
        self.onFenced = onFenced
    }

    /// The error every statement throws once the lock was lost; nil while it is held.
    var current: StoreError? { error.withLock { $0 } }

    /// Sets the fence for `instanceId` (a critical line the first time) and returns its error:
    /// ``RelayStore/StoreError/Code/instanceInUse``.
    func close(instanceId: String) -> StoreError {
        let made = StoreError(
            code: .instanceInUse,
            message: "instance id '\(instanceId)' was taken by another process while the connection to "
                + "PostgreSQL was lost; this relay stopped using the database"
        )
        let first = error.withLock { current -> Bool in
            guard current == nil else { return false }
            current = made
            return true
        }
        guard first else { return current ?? made }
        logger.critical(
            "instance lock lost to another process; stopping",
            ["instance.id": instanceId, "error": made.message]
        )
        onFenced(made)
        return made
    }
}
