import Synchronization

/// Runs the work of one key at a time, in the order it was asked, while other keys' work runs beside it:
/// a user's rate-limit takes in this process, so that a flood of one user's requests waits here, holding
/// nothing, instead of each holding a store connection while it waits on the user's rows (and leaving none
/// free for anyone else). Keys with nothing running or waiting are forgotten: memory follows the work.
final class KeyedTurns: Sendable {
    /// Per key with work running: the turns waiting after it.
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Runs `work` once every earlier turn of `key` has ended.
    func run<T: Sendable>(_ key: String, _ work: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = waiting.withLock { waiting -> Bool in
                guard waiting[key] != nil else {
                    waiting[key] = []
                    return true
                }
                waiting[key]?.append(turn)
                return false
            }
            if now { turn.resume() }
        }
        defer {
            let next = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
                guard let queue = waiting[key], let first = queue.first else {
                    waiting[key] = nil
                    return nil
                }
                waiting[key] = Array(queue.dropFirst())
                return first
            }
            next?.resume()
        }
        return try await work()
    }

    /// Keys with work running (tests).
    var keys: Int { waiting.withLock { $0.count } }
}
