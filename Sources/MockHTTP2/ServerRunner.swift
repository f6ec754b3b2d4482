import Synchronization

/// Starts and stops one ``EventLoop`` on behalf of a mock's public server type, from any thread.
package final class ServerRunner: Sendable {
    private let configuration: EventLoop.Configuration
    private let loop = Mutex<EventLoop?>(nil)
    private let boundPort = Atomic<Int>(0)

    package init(configuration: EventLoop.Configuration) {
        self.configuration = configuration
    }

    deinit { stop() }

    /// Opens the record file (when given), binds, listens and starts the loop thread. Does nothing when
    /// already started.
    /// - Parameter makeHandler: makes each accepted connection's handler, on the loop thread, with the record
    ///   file's writer (shared by every connection).
    /// - Throws: ``MockServerError`` `.invalidConfiguration`, `.listen`, `.tls`, `.recordFile`.
    package func start(
        recordFile: String?,
        makeHandler: @escaping @Sendable (H2Connection, RecordFileWriter?) -> any ConnectionHandler
    ) throws(MockServerError) {
        try loop.withLock { (loop: inout EventLoop?) throws(MockServerError) in
            guard loop == nil else { return }
            let recorder = try recordFile.map { path throws(MockServerError) in try RecordFileWriter(path: path) }
            let started = try EventLoop(configuration: configuration) { makeHandler($0, recorder) }
            started.start()
            boundPort.store(started.port, ordering: .sequentiallyConsistent)
            loop = started
        }
    }

    /// Closes the listening socket and every connection and joins the thread. Safe to call more than once.
    package func stop() {
        let stopped = loop.withLock { (loop: inout EventLoop?) -> EventLoop? in
            defer { loop = nil }
            return loop
        }
        stopped?.stop()
    }

    /// The TCP port listened on (the ephemeral one when configured with port 0); 0 before ``start()``.
    package var port: Int { boundPort.load(ordering: .sequentiallyConsistent) }

    /// Makes the loop look at its connections again (``ConnectionHandler/woken(_:)``), if it runs.
    package func wake() { loop.withLock { $0 }?.wake() }
}
