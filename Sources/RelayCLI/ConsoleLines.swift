import Dispatch
import Foundation
import Synchronization

/// Standard output's lines from threads that must not wait on its reader (a mock's line per request, made
/// on its server's thread), written in order by a thread of their own. A pipe whose reader does not read
/// blocks its writer once the pipe's buffer is full: here only that thread waits, while at most ``capacity``
/// lines are kept; past that a line is dropped and counted, and the count is written after the lines kept
/// (`… N line(s) not printed: standard output was not read`) once the reader takes lines again.
public final class ConsoleLines: Sendable {
    /// The lines of the running command.
    public static let shared = ConsoleLines()

    private struct State {
        var lines: [String] = []
        var dropped = 0
        /// Whether the writer holds lines taken from ``lines`` that it has not written yet.
        var writing = false
        var started = false
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// How many lines wait at most.
    public let capacity: Int

    public init(capacity: Int = 10_000) { self.capacity = capacity }

    /// Keeps `line` for the writer, or counts it dropped when ``capacity`` lines wait.
    public func say(_ line: String) {
        let start = state.withLock { state -> Bool in
            if state.lines.count < capacity { state.lines.append(line) } else { state.dropped += 1 }
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in writeForever() }
            thread.name = "console"
            thread.start()
        }
        wake.signal()
    }

    /// Waits until every line kept is written, at most `limit` (a reader that never reads is not waited
    /// for): a command calls it before it exits, and exits 1 when they were not (``CommandLineTool``).
    /// - Returns: whether they all were.
    @discardableResult
    public func drain(within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while state.withLock({ !$0.lines.isEmpty || $0.writing || $0.dropped > 0 }) {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    private func writeForever() {
        while true {
            wake.wait()
            while let (lines, dropped) = take() {
                for line in lines { RelayCLI.say(line) }
                if dropped > 0 { RelayCLI.say("… \(dropped) line(s) not printed: standard output was not read") }
                state.withLock { $0.writing = false }
            }
        }
    }

    /// The lines kept and the count dropped after them, emptied; nil when there are none.
    private func take() -> ([String], Int)? {
        state.withLock { state in
            guard !state.lines.isEmpty || state.dropped > 0 else { return nil }
            defer {
                state.lines = []
                state.dropped = 0
                state.writing = true
            }
            return (state.lines, state.dropped)
        }
    }
}
