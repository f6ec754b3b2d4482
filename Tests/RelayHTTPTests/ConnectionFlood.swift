import Foundation
import Synchronization

/// Many raw connections from 127.0.0.1 that each send a request's headers one byte at a time (a byte per
/// connection every `interval`), all driven by one thread, until ``stop()``; then every socket is closed.
final class ConnectionFlood: Sendable {
    let connections: [RawConnection]
    private let stopped = Atomic<Bool>(false)
    /// Whether no sending thread runs.
    private let done = Mutex<Bool>(true)

    private init(connections: [RawConnection]) { self.connections = connections }

    /// Opens `count` connections to 127.0.0.1:`port`, on a thread of its own (connecting blocks).
    static func open(port: Int, count: Int) async throws -> ConnectionFlood {
        let connections = try await offPool { try (0..<count).map { _ in try RawConnection(port: port) } }
        return ConnectionFlood(connections: connections)
    }

    /// Starts the sending thread.
    func trickle(every interval: Duration) {
        let request = Array("GET /hello HTTP/1.1\r\nHost: t\r\nX-Trickle: ".utf8)
        done.withLock { $0 = false }
        let thread = Thread { [self] in
            var sent = 0
            while !stopped.load(ordering: .acquiring) {
                var byte = sent < request.count ? request[sent] : UInt8(ascii: "a")
                for connection in connections {
                    _ = Foundation.send(connection.fd, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                sent += 1
                Thread.sleep(forTimeInterval: interval.timeInterval)
            }
            done.withLock { $0 = true }
        }
        thread.start()
    }

    /// Stops the thread and waits for it (at most 10 s); the sockets close as the flood is released.
    func stop() async {
        stopped.store(true, ordering: .releasing)
        let deadline = ContinuousClock.now + .seconds(10)
        while !done.withLock({ $0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
