import Dispatch
import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP: the way an operator (or a container runtime) asks a program to stop, or the
/// terminal it ran in went away. Watched by Dispatch signal sources, never polled.
///
/// Made before the program announces that it is up, so a signal sent the moment it is (a supervisor's, a
/// test's) is caught: from ``init(_:)`` on, none of the signals watched ends the process (the default for each
/// is to end it at once, with no graceful stop), and those that arrive before a handler is set are kept for
/// it. Waiting for them only once up lost a signal sent in between: ignored, and not yet watched.
public final class Signals: Sendable {
    /// The signals a program stops on: SIGINT, SIGTERM, SIGHUP.
    public static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private struct State {
        var pending: [Int32] = []
        var handler: (@Sendable (Int32) -> Void)?
    }
    /// Signals not yet handed over, or the handler; shared with the sources' handlers.
    private final class Inbox: Sendable {
        let state = Mutex(State())

        func deliver(_ number: Int32) {
            let handler = state.withLock { state -> (@Sendable (Int32) -> Void)? in
                if state.handler == nil { state.pending.append(number) }
                return state.handler
            }
            handler?(number)
        }
    }
    private let inbox = Inbox()
    /// Kept for the life of the program; only ``init(_:)`` and `deinit` touch them.
    private let sources: Mutex<[any DispatchSourceSignal]>
    /// Whether Dispatch registered every source within the wait of ``init(_:)``; when not, a signal sent
    /// soon after may be lost, and the program should say so.
    public let registeredInTime: Bool

    /// Watches `numbers` from now on: returns once Dispatch has registered every source.
    public init(_ numbers: [Int32] = Signals.stopping) {
        // Dispatch's sources see a signal whose default action is ignored (as Dispatch asks), from their
        // registration on: a signal sent before that is lost, hence ``init(_:)`` before the program is up.
        // Dispatch registers a source on its own thread after `resume()` (on Linux it then installs its own
        // handler and a signalfd), so the registrations are waited for: a signal sent between `resume()`
        // and them met SIG_IGN and was lost (a mock told to stop the moment it said it listened ran on).
        for number in numbers { signal(number, SIG_IGN) }
        let queue = DispatchQueue(label: "push-relay.signals")
        let made = numbers.map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        let inbox = self.inbox
        let registered = DispatchGroup()
        for (source, number) in zip(made, numbers) {
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.setEventHandler { inbox.deliver(number) }
            source.resume()
        }
        // Bounded so a registration that never comes cannot hold the program: it then starts as before.
        registeredInTime = registered.wait(timeout: .now() + .seconds(10)) == .success
        sources = Mutex(made)
    }

    deinit { sources.withLock { $0.forEach { $0.cancel() } } }

    /// Calls `handler` (on Dispatch's queue) for each signal from now on, and at once for those that
    /// arrived since ``init(_:)``. A later call replaces the handler.
    public func setHandler(_ handler: @escaping @Sendable (Int32) -> Void) {
        let pending = inbox.state.withLock { state -> [Int32] in
            state.handler = handler
            defer { state.pending = [] }
            return state.pending
        }
        for number in pending { handler(number) }
    }
}
