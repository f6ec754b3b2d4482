import CNghttp2
import Dispatch
import Foundation
import RelayCore
import Synchronization

/// The mock's thread: a `poll(2)` loop over the listening socket, a wake-up pipe and every connection.
///
/// `@unchecked Sendable`: after `init`, the mutable state (connections, timers, read buffer, record file) is
/// touched only by the loop thread; other threads only call ``stop()``, which uses an Atomic and a pipe.
final class EventLoop: @unchecked Sendable {
    /// A scripted answer waiting for its deadline.
    struct DelayedAnswer {
        var deadline: ContinuousClock.Instant
        var connectionId: Int
        var streamId: Int32
        var status: Int
        var reason: String?
        var timestamp: Int64?
    }

    let core: MockCore
    let tls: TLSContext?
    let port: Int
    let callbacks: OpaquePointer
    let readBuffer: UnsafeMutableRawBufferPointer
    let recorder: RecordFileWriter?
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var connections: [Int: MockConnection] = [:]
    private var timers: [DelayedAnswer] = []
    /// Set when `accept` ran out of descriptors: the listening socket is left out of `poll` until then, so a
    /// full descriptor table does not spin the loop.
    private var acceptPausedUntil: ContinuousClock.Instant?

    init(core: MockCore) throws(MockAPNsError) {
        let configuration = core.configuration
        guard (0...65535).contains(configuration.port) else {
            throw MockAPNsError(.invalidConfiguration, "port \(configuration.port) is not 0...65535")
        }
        guard configuration.maxConcurrentStreams > 0 else {
            throw MockAPNsError(.invalidConfiguration, "maxConcurrentStreams must be positive")
        }
        self.core = core
        tls = try configuration.tls.map { tls throws(MockAPNsError) in try TLSContext(tls) }
        recorder = try configuration.recordFile.map { path throws(MockAPNsError) in try RecordFileWriter(path: path) }
        (listenFD, port) = try Self.listen(host: configuration.host, port: configuration.port)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0, Self.makeNonBlocking(fds[0]), Self.makeNonBlocking(fds[1]) else {
            Glibc.close(listenFD)
            throw MockAPNsError(.listen, "pipe2 failed: \(String(cString: strerror(errno)))")
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

    private static func listen(host: String, port: Int) throws(MockAPNsError) -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw MockAPNsError(.listen, "getaddrinfo(\(host)) failed: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let address = first.pointee
        let fd = socket(
            address.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0
        )
        guard fd >= 0 else { throw MockAPNsError(.listen, "socket failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.ai_addr, address.ai_addrlen) == 0, Glibc.listen(fd, 1024) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw MockAPNsError(.listen, "cannot listen on \(host):\(port): \(message)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw MockAPNsError(.listen, "getsockname failed: \(String(cString: strerror(errno)))")
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

    func start() {
        let thread = Thread { [self] in
            ThreadName.setForThisThread("apns-mock")
            run()
            finished.signal()
        }
        thread.start()
    }

    /// Stops the loop, closes every connection and waits for the thread to end. Call once.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake()
        finished.wait()
    }

    /// Makes the loop look at its connections again (after a script change). Any thread.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    func schedule(_ delayed: DelayedAnswer) {
        timers.append(delayed)
    }

    private func run() {
        BrokenPipe.blockOnThisThread()
        var pollFDs: [pollfd] = []
        var polled: [MockConnection] = []
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
                // The script may have changed: rules that act at once (afterRequests 0) apply now.
                for connection in polled {
                    connection.refreshFaultsIfScriptChanged()
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
            let (id, nextRule) = core.acceptConnection()
            let connection = MockConnection(id: id, fd: fd, nextRule: nextRule, loop: self)
            connection.flush()
            if !connection.closed { connections[id] = connection }
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
        for delayed in due {
            guard let connection = connections[delayed.connectionId] else { continue }
            connection.answerDelayed(delayed)
            if connection.closed { connections[delayed.connectionId] = nil }
        }
    }
}
