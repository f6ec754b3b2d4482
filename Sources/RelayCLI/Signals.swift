import Dispatch
import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP: the way an operator (or a container runtime) asks a command to stop, or the
/// terminal it ran in went away.
///
/// Made before the command announces that it is up, so a signal sent the moment it is (a supervisor's, a
/// test's) is caught: from ``init()`` on, none of the three ends the process (the default for each is to end
/// it at once, with no graceful stop), and the first to arrive is kept for ``wait()``. Waiting for them only
/// once up lost a signal sent in between: ignored, and not yet watched.
public final class Signals: Sendable {
    private struct State {
        var received: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }
    /// The first signal, or the wait for it; shared with the sources' handlers.
    private final class Inbox: Sendable {
        let state = Mutex(State())
    }
    private let inbox = Inbox()
    /// Kept for the life of the command; only ``init()`` and `deinit` touch them.
    private let sources: Mutex<[any DispatchSourceSignal]>

    public init() {
        let numbers = [SIGINT, SIGTERM, SIGHUP]
        // Dispatch's sources see a signal whose default action is ignored (as Dispatch asks), from their
        // registration on: a signal sent before that is lost, hence ``init()`` before the command is up.
        for number in numbers { signal(number, SIG_IGN) }
        let queue = DispatchQueue(label: "push-relay.signals")
        let made = numbers.map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        let inbox = self.inbox
        for (source, number) in zip(made, numbers) {
            source.setEventHandler {
                let waiter = inbox.state.withLock { state -> CheckedContinuation<Int32, Never>? in
                    guard state.received == nil else { return nil }
                    state.received = number
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: number)
            }
            source.resume()
        }
        sources = Mutex(made)
    }

    deinit { sources.withLock { $0.forEach { $0.cancel() } } }

    /// The first of the three to arrive since ``init()``: at once when one came already.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let received = inbox.state.withLock { state -> Int32? in
                if let received = state.received { return received }
                state.waiter = continuation
                return nil
            }
            if let received { continuation.resume(returning: received) }
        }
    }
}
