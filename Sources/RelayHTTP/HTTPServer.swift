import CMicroHTTPD
import Foundation
import RelayCore
import Synchronization

/// An HTTP/1.1 server on GNU libmicrohttpd: libmicrohttpd parses, keeps connections alive and enforces
/// connection limits and the inactivity timeout on its own epoll (or poll) thread(s), so the connection count
/// is not bound by `select()`'s 1,024; each complete request is handed to an `async` handler in a Swift task
/// while its connection is suspended (`MHD_ALLOW_SUSPEND_RESUME`), so handlers never block libmicrohttpd's
/// threads. The server closes connections whose headers or body miss their deadline
/// (``HTTPServerConfiguration/headerTimeout``) or whose body falls behind its pace, caps connections per peer
/// address and range, sheds the slowest unfinished requests near the total (``ConnectionTable``), and serves
/// HTTPS when given a ``TLSCertificate``.
///
/// Every response carries `X-Request-Id`. Bodies over ``HTTPServerConfiguration/maxBodyBytes`` get 413
/// `payload_too_large` without reaching the handler. Every answer the server gives by itself (a method it
/// does not serve, a malformed or conflicting header, a bad target, a body over the limit) closes the
/// connection: the bytes after a request the server could not read are never run as another request.
public final class HTTPServer: Sendable {
    private enum Lifecycle {
        case idle
        case running(MHDDaemon)
        case stopping
        case stopped
    }

    private let core: ServerCore
    private let lifecycle = Mutex(Lifecycle.idle)
    /// Happens when a ``shutdown()`` has stopped the daemon; a second concurrent call waits for it.
    private let stopped = OneShotEvent()
    private let boundPort = Atomic<Int>(0)
    private let connectionLimit = Atomic<Int>(0)

    /// The certificate HTTPS is served with; `nil` serves plain HTTP.
    public let tls: TLSCertificate?

    /// - Parameters:
    ///   - tls: serve HTTPS with this certificate; `nil` for plain HTTP.
    ///   - methods: the methods the handler answers (``Router/methods``); a request with another method is
    ///     answered 501 `method_not_implemented` as soon as its headers are in, and its connection closed.
    ///     `nil` takes every method.
    ///   - headerCheck: decides each request from its headers and client address before its body is read
    ///     (``Router/headerCheck``), once its framing passed:
    ///     a route's own body limit, or a refusal answered at once; nil lets every request proceed.
    ///   - routeOf: the route pattern a method and request target reach (``Router/routeOf``), given to the
    ///     answers the server makes itself (413, conflicting headers) for the access log and metrics; nil
    ///     gives none.
    ///   - handler: answers every request that passed the server's own checks; called concurrently.
    ///   - logger: for server-level problems (invalid status, refused header, 503s at shutdown).
    ///   - onResponse: called on libmicrohttpd's thread as each response is queued; keep it quick.
    public init(
        configuration: HTTPServerConfiguration,
        tls: TLSCertificate? = nil,
        methods: Set<String>? = nil,
        headerCheck: HeaderVerdict.Check? = nil,
        routeOf: (@Sendable (_ method: String, _ target: String) -> String?)? = nil,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        logger: Logger,
        onResponse: (@Sendable (AccessLogEntry) -> Void)? = nil
    ) {
        self.tls = tls
        core = ServerCore(
            configuration: configuration,
            methods: methods,
            headerCheck: headerCheck,
            routeOf: routeOf,
            handler: handler,
            logger: logger,
            onResponse: onResponse
        )
    }

    /// The configuration the server was made with.
    public var configuration: HTTPServerConfiguration { core.configuration }

    /// The bound TCP port once started (the real one when the configuration asked for 0), else 0.
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// Open connections, the connection limit in force and the connections closed early, by reason.
    public var statistics: HTTPServerStatistics {
        let counts = core.connections.counts
        return HTTPServerStatistics(
            openConnections: counts.open,
            connectionLimit: connectionLimit.load(ordering: .acquiring),
            closed: counts.closures
        )
    }

    /// Binds and starts serving on libmicrohttpd's internal polling thread(s).
    ///
    /// ``HTTPServerConfiguration/maxConnections`` is lowered to ``OpenFileLimit/connectionCapacity`` when the
    /// open-file limit allows fewer (logged as a warning); ``statistics`` tells the limit in force.
    ///
    /// - Throws: ``HTTPServerError`` `.invalidConfiguration`, `.resolve` (host did not resolve), `.start`
    ///   (`MHD_start_daemon` failed, e.g. the port is in use; the open-file limit leaves no room for
    ///   connections; libmicrohttpd has neither epoll nor poll), `.tls` (this libmicrohttpd has no TLS) or
    ///   `.alreadyStarted`.
    public func start() throws {
        let configuration = core.configuration
        let problems = configuration.validate()
        guard problems.isEmpty else {
            throw HTTPServerError(code: .invalidConfiguration, message: problems.joined(separator: "; "))
        }
        try lifecycle.withLock { lifecycle in
            guard case .idle = lifecycle else {
                throw HTTPServerError(code: .alreadyStarted, message: "start() called twice")
            }
            let limit = try connectionLimit(for: configuration)
            core.connections.setLimit(limit)
            let daemon = try Self.startDaemon(configuration: configuration, limit: limit, tls: tls, core: core)
            connectionLimit.store(limit, ordering: .releasing)
            boundPort.store(Int(cmhd_daemon_bound_port(daemon.raw)), ordering: .releasing)
            lifecycle = .running(daemon)
        }
    }

    /// Runs as a service: starts, serves until the calling task is cancelled, then ``shutdown()``.
    ///
    /// - Throws: what ``start()`` throws.
    public func run() async throws {
        try start()
        await Task.waitUntilCancelled()
        // In a task of its own: the cancellation must not cut the drain short.
        await Task { await self.shutdown() }.value
    }

    /// Stops gracefully: stops accepting (`MHD_quiesce_daemon`), lets in-flight requests finish for up to
    /// ``HTTPServerConfiguration/shutdownGracePeriod`` seconds (their answers carry `Connection: close`),
    /// answers handlers still running with 503 `unavailable`, then `MHD_stop_daemon` closes every connection.
    /// Returns at once if never started; a second concurrent call waits for the first.
    public func shutdown() async {
        enum Step {
            case stop(MHDDaemon)
            case waitForTheFirst
            case none
        }
        let step: Step = lifecycle.withLock { lifecycle in
            switch lifecycle {
            case .running(let daemon):
                lifecycle = .stopping
                return .stop(daemon)
            case .idle:
                lifecycle = .stopped
                return .none
            case .stopping: return .waitForTheFirst
            case .stopped: return .none
            }
        }
        switch step {
        case .none: return
        case .waitForTheFirst: return await stopped.wait()
        case .stop(let daemon):
            daemon.quiesce()
            core.beginDraining()
            let grace = Duration.milliseconds(Int(core.configuration.shutdownGracePeriod * 1000))
            await core.waitForNoActiveRequests(until: .now + grace)
            if core.resumeAllSuspended() > 0 {
                // Give libmicrohttpd time to write the 503s before it closes the connections: a request counts
                // as active until libmicrohttpd reports it completed, which is after its answer went out.
                await core.waitForNoActiveRequests(until: .now + .seconds(5))
            }
            daemon.stop()
            boundPort.store(0, ordering: .releasing)
            lifecycle.withLock { $0 = .stopped }
            stopped.signal()
        }
    }

    /// ``HTTPServerConfiguration/maxConnections``, or what the open-file limit leaves room for beside
    /// ``HTTPServerConfiguration/reservedConnections`` when that is less.
    private func connectionLimit(for configuration: HTTPServerConfiguration) throws(HTTPServerError) -> Int {
        let capacity = OpenFileLimit.connectionCapacity - configuration.reservedConnections
        guard capacity > 0 else {
            throw HTTPServerError(
                code: .start,
                message: "the open-file limit (\(OpenFileLimit.current)) leaves no room for connections beside the"
                    + " \(OpenFileLimit.reserve) descriptors kept for the rest of the process; raise it (ulimit -n)"
            )
        }
        guard configuration.maxConnections > capacity else { return configuration.maxConnections }
        core.logger.warning(
            "http.maxConnections lowered to what the open-file limit allows; raise the limit (ulimit -n) to serve more",
            [
                "http.max_connections": configuration.maxConnections, "http.connection_limit": capacity,
                "open_file_limit": OpenFileLimit.current,
            ]
        )
        return capacity
    }

    /// epoll where libmicrohttpd has it, else poll: neither is bound to `select()`'s `FD_SETSIZE` (1,024).
    private static func pollingFlags() throws(HTTPServerError) -> UInt32 {
        if MHD_is_feature_supported(.FEATURE_EPOLL) == .YES { return MHD_USE_EPOLL_INTERNAL_THREAD.rawValue }
        if MHD_is_feature_supported(.FEATURE_POLL) == .YES { return MHD_USE_POLL_INTERNAL_THREAD.rawValue }
        throw HTTPServerError(
            code: .start,
            message: "this libmicrohttpd has neither epoll nor poll; select() cannot serve more than 1,024 connections"
        )
    }

    private static func startDaemon(
        configuration: HTTPServerConfiguration,
        limit: Int,
        tls: TLSCertificate?,
        core: ServerCore
    ) throws(HTTPServerError) -> MHDDaemon {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(configuration.host, nil, &hints, &results)
        guard status == 0, let first = results, let address = first.pointee.ai_addr else {
            throw HTTPServerError(code: .resolve, message: "cannot resolve host \(configuration.host)")
        }
        defer { freeaddrinfo(results) }

        var flags = try pollingFlags() | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if tls != nil {
            guard TLSCertificate.isSupported else {
                throw HTTPServerError(code: .tls, message: "this libmicrohttpd was built without TLS support")
            }
            flags |= MHD_USE_TLS.rawValue
        }
        var storage = sockaddr_storage()
        let port = UInt16(configuration.port)
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen)))
        }
        if Int32(address.pointee.sa_family) == AF_INET6 {
            flags |= MHD_USE_IPv6.rawValue
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = port.bigEndian }
            }
        } else {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = port.bigEndian }
            }
        }

        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: limit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeout, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.maxHeaderBytes, ptr_value: nil),
            // libmicrohttpd's default strictness. Its strict mode (1) refuses an HTTP/1.1 request without Host
            // and spaces in the request target with HTML answers (the first with its status line and headers
            // written twice, in 0.9.75); ServerCore and HTTPRequest refuse both with JSON instead.
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 0, ptr_value: nil),
        ]
        if configuration.threadCount > 1 {
            options.append(
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadCount, ptr_value: nil)
            )
        }

        let context = Unmanaged.passUnretained(core).toOpaque()
        let messages = Unmanaged.passUnretained(core.messages).toOpaque()
        let raw = withUnsafeMutablePointer(to: &storage) { storagePointer in
            storagePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                let listen = MHD_OptionItem(
                    option: .SOCK_ADDR,
                    value: 0,
                    ptr_value: UnsafeMutableRawPointer(socketAddress)
                )
                let end = MHD_OptionItem(option: .END, value: 0, ptr_value: nil)
                let start = { (extra: [MHD_OptionItem]) in
                    ([listen] + options + extra + [end]).withUnsafeBufferPointer { items in
                        cmhd_start_daemon(
                            flags,
                            port,
                            MHDCallbacks.access,
                            MHDCallbacks.completed,
                            MHDCallbacks.connectionNotified,
                            MHDCallbacks.uriLog,
                            context,
                            MHDMessages.callback,
                            messages,
                            items.baseAddress!
                        )
                    }
                }
                return tls.map { $0.withOptions(start) } ?? start([])
            }
        }
        guard let raw else {
            let reason = errno
            let said = core.messages.latest.last.map { " (libmicrohttpd: \($0))" } ?? ""
            // What to do about the common case: the relay runs already, or another program has the port.
            let hint = reason == EADDRINUSE ? "; another process listens there: choose another port" : ""
            throw HTTPServerError(
                code: .start,
                message:
                    "cannot listen on \(configuration.host):\(configuration.port): \(String(cString: strerror(reason)))"
                    + " (errno \(reason))\(said)\(hint)"
            )
        }
        return MHDDaemon(raw: raw, core: core)
    }
}
