import CNghttp2
import Dispatch
import Foundation
import RelayCore
import Synchronization

/// A mock's thread: a `poll(2)` loop over the listening socket, a wake-up pipe and every connection, each
/// an ``H2Connection`` whose requests its ``ConnectionHandler`` answers.
///
/// `@unchecked Sendable`: after `init`, the mutable state (connections, timers, read buffer) is touched only
/// by the loop thread; other threads only call ``stop()`` and ``wake()``, which use an Atomic and a pipe.
package final class EventLoop: @unchecked Sendable {
    /// Where and how a loop listens.
    package struct Configuration: Sendable {
        /// Address to listen on (numeric IPv4/IPv6 or a name `getaddrinfo` resolves).
        package var host: String
        /// TCP port; 0 picks an ephemeral one (see ``EventLoop/port``).
        package var port: Int
        package var tls: ServerTLS?
        /// The loop thread's name, as `top -H` shows it (e.g. `apns-mock`).
        package var threadName: String
        /// Request body bytes kept per stream; more are only counted.
        package var bodyLimit: Int

        package init(host: String, port: Int, tls: ServerTLS?, threadName: String, bodyLimit: Int) {
            self.host = host
            self.port = port
            self.tls = tls
            self.threadName = threadName
            self.bodyLimit = bodyLimit
        }
    }

    /// Makes the handler of a newly accepted connection (on the loop thread).
    package typealias HandlerFactory = (H2Connection) -> any ConnectionHandler

    /// Work waiting for its deadline, e.g. a scripted delayed answer.
    private struct Timer {
        var deadline: ContinuousClock.Instant
        var connectionId: Int
        var fire: (H2Connection) -> Void
    }

    let tls: TLSContext?
    /// The TCP port the loop listens on (the ephemeral one when configured with port 0).
    package let port: Int
    let callbacks: OpaquePointer
    let readBuffer: UnsafeMutableRawBufferPointer
    let bodyLimit: Int
    private let threadName: String
    private let makeHandler: HandlerFactory
    private var nextConnectionId = 0
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var connections: [Int: H2Connection] = [:]
    private var timers: [Timer] = []
    /// Set when `accept` ran out of descriptors: the listening socket is left out of `poll` until then, so a
    /// full descriptor table does not spin the loop.
    private var acceptPausedUntil: ContinuousClock.Instant?

    /// Loads TLS and listens; nothing is accepted until ``start()``.
    /// - Parameter makeHandler: called on the loop thread for each accepted connection (ids from 1).
    /// - Throws: ``MockServerError`` `.invalidConfiguration` (port), `.tls`, `.listen`.
    package init(configuration: Configuration, makeHandler: @escaping HandlerFactory) throws(MockServerError) {
        guard (0...65535).contains(configuration.port) else {
            throw MockServerError(.invalidConfiguration, "port \(configuration.port) is not 0...65535")
        }
        tls = try configuration.tls.map { tls throws(MockServerError) in try TLSContext(tls) }
        threadName = configuration.threadName
        bodyLimit = configuration.bodyLimit
        self.makeHandler = makeHandler
        (listenFD, port) = try Self.listen(host: configuration.host, port: configuration.port)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0, Self.makeNonBlocking(fds[0]), Self.makeNonBlocking(fds[1]) else {
            Glibc.close(listenFD)
            throw MockServerError(.listen, "pipe2 failed: \(String(cString: strerror(errno)))")
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        callbacks = NghttpCallbacks.make()
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        Glibc.close(listenFD)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
        nghttp2_session_callbacks_del(callbacks)
        readBuffer.deallocate()
    }

    private static func listen(host: String, port: Int) throws(MockServerError) -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw MockServerError(.listen, "getaddrinfo(\(host)) failed: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let address = first.pointee
        let fd = socket(
            address.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0
        )
        guard fd >= 0 else { throw MockServerError(.listen, "socket failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.ai_addr, address.ai_addrlen) == 0, Glibc.listen(fd, 1024) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw MockServerError(.listen, "cannot listen on \(host):\(port): \(message)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw MockServerError(.listen, "getsockname failed: \(String(cString: strerror(errno)))")
        }
        let family = Int32(storage.ss_family)
        let boundPort: UInt16 = withUnsafePointer(to: &storage) {
            if family == AF_INET6 {
                return $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, Int(boundPort))
    }

    /// Sets O_NONBLOCK and FD_CLOEXEC on a descriptor.
    private static func makeNonBlocking(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
    }

    /// Starts the loop thread.
    package func start() {
        let thread = Thread { [self] in
            ThreadName.setForThisThread(threadName)
            run()
            finished.signal()
        }
        thread.start()
    }

    /// Stops the loop, closes every connection and waits for the thread to end. Call once.
    package func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake()
        finished.wait()
    }

    /// Makes the loop look at its connections again (after a script change). Any thread.
    package func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Runs `fire` on the loop thread at `deadline` with the connection `connectionId`, if it is still open.
    /// Loop thread only.
    package func schedule(
        at deadline: ContinuousClock.Instant,
        connectionId: Int,
        _ fire: @escaping (H2Connection) -> Void
    ) {
        timers.append(Timer(deadline: deadline, connectionId: connectionId, fire: fire))
    }

    private func run() {
        BrokenPipe.blockOnThisThread()
        var pollFDs: [pollfd] = []
        var polled: [H2Connection] = []
        while !stopping.load(ordering: .sequentiallyConsistent) {
            pollFDs.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            pollFDs.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            if let paused = acceptPausedUntil, paused <= .now { acceptPausedUntil = nil }
            let listenEvents = acceptPausedUntil == nil ? Int16(POLLIN) : 0
            pollFDs.append(pollfd(fd: listenFD, events: listenEvents, revents: 0))
            for connection in connections.values {
                let events = Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0)
                pollFDs.append(pollfd(fd: connection.fd, events: events, revents: 0))
                polled.append(connection)
            }
            let ready = poll(&pollFDs, nfds_t(pollFDs.count), timerTimeout())
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if pollFDs[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &sink, sink.count) > 0 {}
                // A handler's script may have changed: what acts at once applies now.
                for connection in polled {
                    connection.woken()
                    connection.flush()
                    if connection.closed { connections[connection.id] = nil }
                }
            }
            if pollFDs[1].revents & Int16(POLLIN) != 0 { acceptAll() }
            for (index, connection) in polled.enumerated() where !connection.closed {
                let events = pollFDs[index + 2].revents
                guard events != 0 else { continue }
                if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { connection.onReadable() }
                if events & Int16(POLLOUT) != 0 { connection.onWritable() }
                if connection.closed { connections[connection.id] = nil }
            }
            fireTimers()
        }
        for connection in connections.values { connection.close() }
        connections.removeAll()
        timers.removeAll()
    }

    private func acceptAll() {
        while true {
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    acceptPausedUntil = .now + .milliseconds(100)
                }
                return
            }
            guard Self.makeNonBlocking(fd) else {
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            nextConnectionId += 1
            let connection = H2Connection(id: nextConnectionId, fd: fd, loop: self)
            connection.start(handler: makeHandler(connection))
            connection.flush()
            if !connection.closed { connections[connection.id] = connection }
        }
    }

    private func timerTimeout() -> Int32 {
        let deadlines =
            timers.map(\.deadline) + (acceptPausedUntil.map { [$0] } ?? [])
            + connections.values.compactMap(\.lingerDeadline)
        guard let next = deadlines.min() else { return -1 }
        let wait = ContinuousClock.now.duration(to: next)
        if wait <= .zero { return 0 }
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1
        return Int32(clamping: milliseconds)
    }

    private func fireTimers() {
        let now = ContinuousClock.now
        for connection in connections.values where connection.closeIfLingeredUntil(now) {
            connections[connection.id] = nil
        }
        guard !timers.isEmpty else { return }
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due {
            guard let connection = connections[timer.connectionId], !connection.closed else { continue }
            timer.fire(connection)
            connection.flush()
            if connection.closed { connections[timer.connectionId] = nil }
        }
    }
}
