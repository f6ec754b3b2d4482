/// The two bridges between completion handlers and async code that the push clients and transports use:
/// a caller that awaits what a completion-based call hands back, and a completion-based call whose work
/// must wait in a task (a token to fetch first).
public enum Completions {
    /// What `start` hands the completion it is given (which it calls once), awaited.
    public static func awaiting<Value: Sendable>(
        _ start: (@escaping @Sendable (Value) -> Void) -> Void
    ) async -> Value {
        await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
    }

    /// Runs `work` in a new task and hands `completion` its value, or the error it threw.
    public static func inTask<Value: Sendable>(
        _ completion: @escaping @Sendable (Result<Value, any Error>) -> Void,
        _ work: @escaping @Sendable () async throws -> Value
    ) {
        Task {
            do { completion(.success(try await work())) } catch { completion(.failure(error)) }
        }
    }
}
