import CMicroHTTPD
import Foundation
import RelayCore
import Synchronization

/// What libmicrohttpd's callbacks call into: collects each request, suspends its connection, runs the
/// handler as a Swift task and queues the answer once the connection is resumed.
final class ServerCore: Sendable {
    struct State {
        /// Suspended connections by context, so shutdown can resume each one.
        var suspended: [ObjectIdentifier: RequestContext] = [:]
        /// Requests between their request line and their end (`MHD_OPTION_NOTIFY_COMPLETED`).
        var active = 0
        /// Requests whose handler runs or whose answer is not queued yet.
        var unanswered = 0
        /// Draining: answers carry `Connection: close`.
        var draining = false
        /// No more suspensions: new requests are answered 503 right away.
        var closed = false
        /// Waits for ``active`` to reach 0 (``waitForNoActiveRequests(until:)``).
        var quietWaiters: [OneShotEvent] = []
    }

    let configuration: HTTPServerConfiguration
    /// The methods the handler answers; `nil`: every method.
    let methods: Set<String>?
    /// Decides a request from its headers before its body is read; nil: every request proceeds.
    let headerCheck: HeaderVerdict.Check?
    /// The route pattern a request's method and target would reach (``Router/routeOf``), for the answers the
    /// server gives itself; nil labels none.
    let routeOf: (@Sendable (_ method: String, _ target: String) -> String?)?
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    let logger: Logger
    let onResponse: (@Sendable (AccessLogEntry) -> Void)?
    let state = Mutex(State())
    /// Open connections: deadlines, body pace, caps and shedding.
    let connections: ConnectionTable
    let proxies: TrustedProxies
    /// libmicrohttpd's messages for this server's daemon.
    let messages: MHDMessages

    init(
        configuration: HTTPServerConfiguration,
        methods: Set<String>?,
        headerCheck: HeaderVerdict.Check? = nil,
        routeOf: (@Sendable (_ method: String, _ target: String) -> String?)? = nil,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        logger: Logger,
        onResponse: (@Sendable (AccessLogEntry) -> Void)?
    ) {
        self.configuration = configuration
        self.methods = methods
        self.headerCheck = headerCheck
        self.routeOf = routeOf
        self.handler = handler
        self.logger = logger
        self.onResponse = onResponse
        proxies = TrustedProxies(configuration.trustedProxies) ?? .none
        connections = ConnectionTable(configuration: configuration, proxies: proxies, logger: logger)
        messages = MHDMessages(logger: logger)
    }

    var activeRequests: Int { state.withLock { $0.active } }
    var unansweredRequests: Int { state.withLock { $0.unanswered } }

    func beginDraining() { state.withLock { $0.draining = true } }

    // MARK: libmicrohttpd callbacks (on its polling threads)

    /// `MHD_CONNECTION_NOTIFY_STARTED`: a connection was accepted; it is counted against its caps (and closed
    /// when over one), and its header deadline starts.
    func connectionStarted(_ connection: OpaquePointer) {
        let peer = Self.numericAddress(cmhd_connection_client_address(connection))
        connections.opened(connection, socket: cmhd_connection_socket(connection), peer: peer)
    }

    /// `MHD_CONNECTION_NOTIFY_CLOSED`: libmicrohttpd closes the connection's socket right after this returns.
    func connectionClosed(_ connection: OpaquePointer) {
        connections.closed(connection)
    }

    /// `MHD_OPTION_URI_LOG_CALLBACK`: a request line arrived. Returns the retained context.
    func requestStarted(target: UnsafePointer<CChar>, connection: OpaquePointer) -> UnsafeMutableRawPointer {
        state.withLock { $0.active += 1 }
        return Unmanaged.passRetained(RequestContext(target: target, connection: connection)).toOpaque()
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: the request ended (answered, timed out, or the daemon stopped). A
    /// request libmicrohttpd answered by itself, before the access handler saw it (headers too large: 431)
    /// or while its body arrived (a malformed chunk), is reported to `onResponse` here with the status it
    /// queued: the relay's own answers leave those phases first.
    func requestCompleted(_ pointer: UnsafeMutableRawPointer) {
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
        connections.requestEnded(context.connection)
        let (wasUnanswered, libraryAnswered) = context.state.withLock { state -> (Bool, Bool) in
            defer { state.phase = .done }
            switch state.phase {
            case .suspended, .ready: return (true, false)
            case .start, .receiving: return (false, true)
            case .checking, .checked, .done: return (false, false)
            }
        }
        if libraryAnswered { reportLibraryAnswer(context) }
        let quiet = state.withLock { state -> [OneShotEvent] in
            state.active -= 1
            if wasUnanswered { state.unanswered -= 1 }
            state.suspended[ObjectIdentifier(context)] = nil
            guard state.active == 0 else { return [] }
            defer { state.quietWaiters = [] }
            return state.quietWaiters
        }
        for waiter in quiet { waiter.signal() }
    }

    /// Reports to `onResponse` the answer libmicrohttpd queued itself for `context`'s request, if it refused
    /// it (4xx), with what the access handler learnt of the request (nothing when it never ran: no method,
    /// the peer as the client); its route is none. Its 500 for a request past its buffers (a chunk extension
    /// of 70 kB) is left out: it would read as the relay's own failure, which a stranger could raise at will.
    private func reportLibraryAnswer(_ context: RequestContext) {
        let status = Int(cmhd_connection_queued_status(context.connection))
        guard let onResponse, (400..<500).contains(status) else { return }
        let peer = Self.numericAddress(cmhd_connection_client_address(context.connection))
        let request = context.state.withLock { $0 }
        onResponse(
            AccessLogEntry(
                requestID: request.requestID.isEmpty ? HTTPRequest.makeRequestID() : request.requestID,
                method: request.method,
                path: request.path,
                route: nil,
                status: status,
                durationMilliseconds: (ContinuousClock.now - context.started).timeInterval * 1000,
                requestBytes: request.receivedBytes,
                responseBytes: 0,
                remoteAddress: request.remoteAddress.isEmpty ? peer : request.remoteAddress,
                clientAddress: request.clientAddress.isEmpty ? peer : request.clientAddress
            )
        )
    }

    /// Returns once no request is active (each one answered or ended), at `deadline`, or when the calling
    /// task is cancelled, whichever comes first. A request that is answered has ended only once
    /// libmicrohttpd reports it completed, after its answer went out.
    func waitForNoActiveRequests(until deadline: ContinuousClock.Instant) async {
        let quiet = OneShotEvent()
        let waiting = state.withLock { state -> Bool in
            guard state.active > 0 else { return false }
            state.quietWaiters.append(quiet)
            return true
        }
        guard waiting else { return }
        await quiet.wait(until: deadline)
    }

    /// The access handler (see `MHD_AccessHandlerCallback`): called once after the headers, once per body
    /// chunk, once at the end of the body, and once more after the connection is resumed. `requestStart` is
    /// where the request line starts in libmicrohttpd's read buffer (its method's first byte); `version` is
    /// the request line's, e.g. `"HTTP/1.1"`; `cut` what of the request line a NUL byte cut short, if
    /// anything (``RequestContext/cut(method:version:)``), looked at once, when the headers are in.
    func access(
        connection: OpaquePointer,
        method: String,
        requestStart: UnsafePointer<CChar>,
        version: String,
        cut: @autoclosure () -> RequestContext.Cut?,
        uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        context: RequestContext
    ) -> MHD_Result {
        enum Step: Sendable {
            case headers
            case checked(HeaderVerdict)
            case more
            case received(Int)
            case overLimit
            case endOfBody
            case send(HTTPResponse)
        }
        let step = context.state.withLock { state -> Step in
            let limit = state.bodyLimit ?? configuration.maxBodyBytes
            let discardLimit = limit + max(limit, 1 << 20)
            switch state.phase {
            case .start:
                state.phase = .receiving
                return .headers
            case .checking:
                return .more
            case .checked(let verdict):
                state.phase = .receiving
                return .checked(verdict)
            case .receiving:
                let count = uploadSize.pointee
                guard count > 0 else { return .endOfBody }
                uploadSize.pointee = 0
                if state.receivedBytes == 0, let uploadData,
                    !ReceivedHeaders.bodyStartsWhereExpected(state.bodyStart, at: uploadData)
                {
                    state.misframed = true
                }
                state.receivedBytes += count
                if state.tooLarge && state.receivedBytes > discardLimit { return .overLimit }
                if !state.tooLarge, let uploadData {
                    if state.body.count + count > limit {
                        state.tooLarge = true
                        state.body = Data()
                    } else {
                        uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                            state.body.append($0, count: count)
                        }
                    }
                }
                return .received(count)
            case .suspended:
                return .more
            case .ready(let response):
                state.phase = .done
                return .send(response)
            case .done:
                uploadSize.pointee = 0
                return .more
            }
        }
        switch step {
        case .more:
            return .YES
        case .received(let count):
            connections.bodyReceived(connection, count: count)
            return .YES
        case .overLimit:
            // libmicrohttpd 0.9.75 refuses MHD_queue_response in the middle of a body: the rest is discarded
            // (not buffered) and the 413 goes out at the end of it, unless the client keeps sending far past
            // the limit, in which case the connection is closed without an answer.
            return .NO
        case .send(let response):
            state.withLock { $0.unanswered -= 1 }
            return queue(response, on: connection, context: context)
        case .headers:
            return receivedHeaders(
                connection: connection,
                method: method,
                requestStart: requestStart,
                version: version,
                cut: cut(),
                context: context
            )
        case .checked(let verdict):
            connections.headersReceived(connection)
            let result = apply(verdict, connection: connection, context: context)
            // Body bytes handed over with this call (libmicrohttpd reads none before it): taken as any.
            guard result == .YES, uploadSize.pointee > 0 else { return result }
            return access(
                connection: connection,
                method: method,
                requestStart: requestStart,
                version: version,
                cut: nil,
                uploadData: uploadData,
                uploadSize: uploadSize,
                context: context
            )
        case .endOfBody:
            return receivedBody(connection: connection, context: context)
        }
    }

    private func receivedHeaders(
        connection: OpaquePointer,
        method: String,
        requestStart: UnsafePointer<CChar>,
        version: String,
        cut: RequestContext.Cut?,
        context: RequestContext
    ) -> MHD_Result {
        let received = ReceivedHeaders.read(from: connection, requestStart: requestStart)
        let headers = received.headers
        connections.headersReceived(connection)
        let remote = Self.numericAddress(cmhd_connection_client_address(connection))
        let client = proxies.clientAddress(peer: remote, forwardedFor: headers.values(for: "x-forwarded-for"))
        let requestID = HTTPRequest.acceptableRequestID(headers["x-request-id"]) ?? HTTPRequest.makeRequestID()
        let target = context.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let path = percentDecoded(target) ?? String(target)
        context.state.withLock {
            $0.method = method
            $0.headers = headers
            $0.bodyStart = received.bodyStart
            $0.remoteAddress = remote
            $0.clientAddress = client
            $0.requestID = requestID
            $0.path = path
        }
        // The headers' framing first (what a proxy in front may read otherwise), then the route's check (its
        // body limit, or a refusal: a missing credential), then the announced length: a stranger learns no
        // body limit. All before any body byte is read (or `100 Continue` sent).
        if let problem = headerProblem(received, method: method, version: version, cut: cut) {
            return refuse(problem, on: connection, context: context)
        }
        return apply(
            headerCheck?(method, context.target, headers, client) ?? .proceed(maxBodyBytes: nil),
            connection: connection,
            context: context
        )
    }

    /// Goes on as the route's header check decided: refuses the request, reads its body (of at most the
    /// check's limit, refusing a longer announced length), or suspends the connection, its body unread,
    /// until a ``HeaderVerdict/settle(_:)`` answers.
    private func apply(_ verdict: HeaderVerdict, connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        switch verdict {
        case .refuse(let error):
            return refuse(error, on: connection, context: context)
        case .settle(let settle):
            return suspend(connection, context: context, until: settle)
        case .proceed(let routeLimit, let note):
            let limit = routeLimit ?? configuration.maxBodyBytes
            let headers = context.state.withLock { state in
                state.bodyLimit = limit
                state.headerNote = note
                return state.headers
            }
            if let problem = lengthProblem(headers, limit: limit) {
                return refuse(problem, on: connection, context: context)
            }
            return .YES
        }
    }

    /// Suspends the connection until `settle` answers; its answer is applied when the connection is resumed
    /// (``access(connection:method:requestStart:version:cut:uploadData:uploadSize:context:)``'s next call, still before the
    /// body). No deadline runs meanwhile: the check has its own.
    private func suspend(
        _ connection: OpaquePointer,
        context: RequestContext,
        until settle: @escaping @Sendable () async -> HeaderVerdict
    ) -> MHD_Result {
        connections.requestReceived(connection)
        let suspended = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            context.state.withLock { $0.phase = .checking }
            MHD_suspend_connection(connection)
            state.suspended[ObjectIdentifier(context)] = context
            return true
        }
        guard suspended else {
            return refuse(.unavailable(message: "Shutting down"), on: connection, context: context)
        }
        Task {
            let verdict = await settle()
            context.state.withLock { state in
                guard case .checking = state.phase else { return }
                state.phase = .checked(verdict)
                MHD_resume_connection(context.connection)
            }
            self.state.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
        }
        return .YES
    }

    /// What the request line and headers alone decide, in this order:
    /// - 501 `method_not_implemented`: a method the handler does not answer (RFC 9110 §15.6.2), before
    ///   anything else is looked at;
    /// - 400 `invalid_target` for a target holding a NUL byte, `bad_request` for such a method (`cut`), which
    ///   would be served as the part before it, before a route's check of the headers reads that part;
    /// - 400 `malformed_header`: a field name that is not a token (RFC 9110 §5.1), such as one with white
    ///   space before its colon, which RFC 9112 §5.1 requires a server to refuse: a proxy in front may read
    ///   the field (`Content-Length : 5`) where libmicrohttpd reads another name, and frame the body
    ///   otherwise; a control character in a value, obs-fold or a bare LF (``ReceivedHeaders``); a
    ///   Content-Length that is not digits alone (RFC 9112 §6.3: `0\x0034` or `3x` is not a length);
    /// - 400 `missing_host`: an HTTP/1.1 request without Host (RFC 9112 §3.2; libmicrohttpd's strict mode
    ///   would answer with an HTML page whose status line and headers 0.9.75 writes twice);
    /// - headers where libmicrohttpd would guess (it reads the first of two values, and a proxy in front may
    ///   have read the other: request smuggling): 400 `conflicting_headers` for more than one Host (RFC
    ///   9112 §3.2), Authorization (RFC 9110 §11.6.2 defines one credential) or Content-Type (RFC 9110
    ///   §8.3: one media type; JSON or NDJSON would depend on the reader), Content-Length values that
    ///   differ (RFC 9112 §6.3; repeats of one value are allowed), or Content-Length beside
    ///   Transfer-Encoding (RFC 9112 §6.1 lets a server refuse it); 501 `unsupported_transfer_encoding` for
    ///   Transfer-Encoding other than one field `chunked` (RFC 9112 §6.1; any case, no white space after it,
    ///   where libmicrohttpd reads no coding at all), which libmicrohttpd left unanswered until the
    ///   connection timed out.
    ///
    /// Each is answered by ``refuse(_:on:context:)``, which closes the connection; so is
    /// ``lengthProblem(_:limit:)``'s 413, looked at after the route's own check of the headers.
    func headerProblem(
        _ received: ReceivedHeaders,
        method: String,
        version: String,
        cut: RequestContext.Cut?
    ) -> HTTPError? {
        let headers = received.headers
        if let methods, !methods.contains(method) {
            return HTTPError(
                status: 501,
                code: "method_not_implemented",
                message: "The method is not one this server answers: \(methods.sorted().joined(separator: ", "))"
            )
        }
        switch cut {
        case .target: return HTTPRequest.unprintableTarget
        case .method:
            return .badRequest(message: "The request method holds a NUL byte or is followed by more than one space")
        case nil: break
        }
        if let problem = received.problem {
            return .badRequest(code: "malformed_header", message: problem)
        }
        if version == "HTTP/1.1", headers["host"] == nil {
            return .badRequest(code: "missing_host", message: "An HTTP/1.1 request needs a Host header")
        }
        func conflict(_ message: String) -> HTTPError {
            HTTPError(status: 400, code: "conflicting_headers", message: message)
        }
        for name in ["host", "authorization", "content-type"] where headers.values(for: name).count > 1 {
            return conflict("The request has more than one \(name) header")
        }
        let lengths = Self.list(headers, "content-length")
        if lengths.contains(where: { $0.isEmpty || !$0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) {
            return .badRequest(code: "malformed_header", message: "Content-Length must be digits (RFC 9112 §6.3)")
        }
        if Set(lengths).count > 1 { return conflict("The request's Content-Length values differ") }
        let codings = headers.values(for: "transfer-encoding")
        if !codings.isEmpty, !lengths.isEmpty {
            return conflict("The request has both Content-Length and Transfer-Encoding")
        }
        if !codings.isEmpty, codings.map({ $0.lowercased() }) != ["chunked"] {
            return HTTPError(
                status: 501,
                code: "unsupported_transfer_encoding",
                message: "Transfer-Encoding must be chunked alone"
            )
        }
        return nil
    }

    /// 413 when the announced Content-Length is over `limit` (the route's body limit, else the server's),
    /// for headers ``headerProblem(_:method:version:cut:)`` passed (one length, digits alone).
    func lengthProblem(_ headers: HTTPHeaders, limit: Int) -> HTTPError? {
        let length = Self.list(headers, "content-length").first.flatMap { Int($0) }
        guard let length, length > limit else { return nil }
        return .payloadTooLarge(limit: limit)
    }

    /// A field's values as one comma-separated list (RFC 9110 §5.3), each trimmed of OWS (SP, HTAB).
    private static func list(_ headers: HTTPHeaders, _ name: String) -> [String] {
        headers.values(for: name).flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map(HTTPHeaders.trimmed)
    }

    private func receivedBody(connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        connections.requestReceived(connection)
        let snapshot = context.state.withLock { $0 }
        if snapshot.misframed || ReceivedHeaders.startsAsAHeaderField(snapshot.body) {
            return refuse(
                .badRequest(code: "malformed_header", message: "A header line has no field name (RFC 9112 §5.1)"),
                on: connection,
                context: context
            )
        }
        if snapshot.tooLarge {
            return refuse(
                HTTPError.payloadTooLarge(limit: snapshot.bodyLimit ?? configuration.maxBodyBytes),
                on: connection,
                context: context
            )
        }
        var request: HTTPRequest
        do {
            request = try HTTPRequest(
                method: snapshot.method,
                target: context.target,
                headers: snapshot.headers,
                body: snapshot.body,
                remoteAddress: snapshot.remoteAddress,
                clientAddress: snapshot.clientAddress,
                id: snapshot.requestID
            )
        } catch {
            return refuse(error as? HTTPError ?? .badRequest(message: "Bad request"), on: connection, context: context)
        }
        request.arrived = context.started
        request.headerNote = snapshot.headerNote
        context.state.withLock { $0.path = request.path }
        let suspended = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            context.state.withLock { $0.phase = .suspended }
            MHD_suspend_connection(connection)
            state.suspended[ObjectIdentifier(context)] = context
            state.unanswered += 1
            return true
        }
        guard suspended else {
            return refuse(.unavailable(message: "Shutting down"), on: connection, context: context)
        }
        Task {
            let response = await self.handler(request)
            self.handlerFinished(context, response)
        }
        return .YES
    }

    /// Stores the handler's answer and resumes the connection, unless shutdown already answered it.
    private func handlerFinished(_ context: RequestContext, _ response: HTTPResponse) {
        context.state.withLock { state in
            guard case .suspended = state.phase else { return }
            state.phase = .ready(response)
            MHD_resume_connection(context.connection)
        }
        state.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
    }

    /// Answers every suspended connection with 503 and resumes it; afterwards no connection is suspended
    /// again (`MHD_stop_daemon` aborts the process if one is). Returns how many were resumed.
    @discardableResult
    func resumeAllSuspended() -> Int {
        let contexts = state.withLock { state in
            state.closed = true
            state.draining = true
            let contexts = Array(state.suspended.values)
            state.suspended = [:]
            return contexts
        }
        var resumed = 0
        let shuttingDown = HTTPError.unavailable(message: "Shutting down")
        for context in contexts {
            context.state.withLock { state in
                switch state.phase {
                case .suspended: state.phase = .ready(shuttingDown.response)
                case .checking: state.phase = .checked(.refuse(shuttingDown))
                default: return
                }
                MHD_resume_connection(context.connection)
                resumed += 1
            }
        }
        if resumed > 0 { logger.warning("answered unfinished requests with 503 at shutdown", ["count": resumed]) }
        return resumed
    }

    /// Answers a request the server refuses by itself (``headerProblem(_:method:version:cut:)``, a target it
    /// cannot parse, a body over the limit, shutdown) with `Connection: close`: after a request the server
    /// did not take, where the next one starts is not known, so nothing more is read from the connection.
    private func refuse(_ error: HTTPError, on connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        let method = context.state.withLock {
            $0.phase = .done
            return $0.method
        }
        var response = error.response
        response.route = routeOf?(method, context.target)
        response.headers.append(("Connection", "close"))
        return queue(response, on: connection, context: context)
    }

    /// Queues `response` with `X-Request-Id` (and `Connection: close` while draining, or when it refuses a
    /// request that sent a body) and reports it.
    private func queue(
        _ response: HTTPResponse,
        on connection: OpaquePointer,
        context: RequestContext
    ) -> MHD_Result {
        let info = context.state.withLock {
            (
                id: $0.requestID, method: $0.method, path: $0.path,
                bytes: $0.receivedBytes, remote: $0.remoteAddress, client: $0.clientAddress
            )
        }
        var response = response
        if !(100...599).contains(response.status) {
            logger.error(
                "handler returned an invalid status",
                ["request.id": info.id, "http.status": response.status]
            )
            response = HTTPError.internal().response
        }
        let draining = state.withLock { $0.draining }
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count,
                UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                .RESPMEM_MUST_COPY
            )
        }
        guard let mhdResponse else {
            logger.error("MHD_create_response_from_buffer failed", ["request.id": info.id])
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers {
            let lower = name.lowercased()
            if lower == "content-length" || lower == "transfer-encoding" || lower == "x-request-id" { continue }
            if MHD_add_response_header(mhdResponse, name, value) != .YES {
                logger.warning("response header refused", ["request.id": info.id, "http.header": name])
            }
        }
        _ = MHD_add_response_header(mhdResponse, "X-Request-Id", info.id)
        // An error answer to a request that sent a body closes the connection too: the body may not be what
        // the client framed (a line libmicrohttpd took for the header section's end moves it, and a bare-LF
        // `:` line leaves no other trace), and what follows it must not run as another request.
        let closing = draining || (info.bytes > 0 && response.status >= 400)
        if closing, !response.headers.contains(where: { $0.0.lowercased() == "connection" }) {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        guard result == .YES else {
            logger.error("MHD_queue_response failed", ["request.id": info.id, "http.status": response.status])
            return result
        }
        connections.answerQueued(connection)
        if let onResponse {
            let elapsed = ContinuousClock.now - context.started
            let milliseconds = elapsed.timeInterval * 1000
            onResponse(
                AccessLogEntry(
                    requestID: info.id,
                    method: info.method,
                    path: info.path,
                    route: response.route,
                    status: response.status,
                    durationMilliseconds: milliseconds,
                    requestBytes: info.bytes,
                    responseBytes: response.body.count,
                    remoteAddress: info.remote,
                    clientAddress: info.client
                )
            )
        }
        return result
    }

    // MARK: helpers

    /// `"127.0.0.1"`, `"::1"`; `""` when unknown.
    static func numericAddress(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        let length: socklen_t
        switch Int32(address.pointee.sa_family) {
        case AF_INET: length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case AF_INET6: length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        default: return ""
        }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return ""
        }
        return host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
