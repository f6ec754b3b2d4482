import Dispatch
import Synchronization

/// Runs `operation` as a task and blocks the CALLING thread until it returns: how the consumer's own
/// thread (never a thread of the cooperative pool, which this would starve) awaits the store.
func blockingAwait<T: Sendable>(
    _ operation: @escaping @Sendable () async throws -> T
) -> Result<T, any Error> {
    let outcome = AwaitedOutcome<T>()
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.value.withLock { $0 = result }
        outcome.done.signal()
    }
    outcome.done.wait()
    return outcome.value.withLock { $0! }
}

/// The result a task hands to the thread waiting in ``blockingAwait(_:)``.
private final class AwaitedOutcome<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
}
