import Dispatch
import Foundation

/// Waits for SIGINT, SIGTERM or SIGHUP: the way an operator (or a container runtime) asks a command to stop,
/// or the terminal it ran in went away.
public enum Signals {
    /// Returns the first of SIGINT / SIGTERM / SIGHUP to arrive; none kills the process while this waits (the
    /// default for SIGHUP was to end it at once, with no graceful stop).
    public static func waitForTermination() async -> Int32 {
        let numbers = [SIGINT, SIGTERM, SIGHUP]
        for number in numbers { signal(number, SIG_IGN) }
        let queue = DispatchQueue(label: "push-relay.signals")
        let sources = numbers.map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        defer { sources.forEach { $0.cancel() } }
        return await withCheckedContinuation { continuation in
            let once = Once()
            for (source, number) in zip(sources, numbers) {
                source.setEventHandler { if once.claim() { continuation.resume(returning: number) } }
                source.resume()
            }
        }
    }
}

/// True exactly once.
final class Once: @unchecked Sendable {
    // Only touched from the signals queue, which is serial, so no lock is needed.
    private var done = false
    func claim() -> Bool {
        defer { done = true }
        return !done
    }
}
