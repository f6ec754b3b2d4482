/// The public side of a mock push server, the same for every service: start and stop, the port, the script,
/// and what was answered. A service's server (`MockAPNsServer`, `MockFCMServer`) subclasses it with its
/// configuration and its ``MockService``; see there for what the generic part does.
///
/// `open` only for the services' servers: its one initializer is `package`, so no module outside the
/// package can make a subclass. `@unchecked Sendable`: a class open to subclasses cannot be checked; every
/// stored property is a `let` of a `Sendable` type, and subclasses add only such.
open class MockServer<Script: Sendable, Record: Sendable & Encodable>: @unchecked Sendable {
    private let state: MockState<Script>
    private let log: RequestLog<Record>
    private let runner: ServerRunner
    private let recordFile: String?
    private let problem: String?
    private let makeHandler: @Sendable (H2Connection, RecordFileWriter?) -> any ConnectionHandler

    /// Prepares a server for `configuration`; nothing listens until ``start()``.
    /// - Parameter makeService: makes each accepted connection's service, on the loop thread.
    package init<Service: MockService>(
        configuration: some MockServerSettings<Script, Record>,
        makeService: @escaping @Sendable () -> Service
    ) where Service.Script == Script, Service.Record == Record {
        let state = MockState(script: configuration.script)
        let log = RequestLog<Record>(
            keepInMemory: configuration.recordInMemory,
            limit: configuration.maxRecordedRequests
        ) { waited, count, total in
            MockServerError(.timeout, "waited \(waited) for \(count) requests; \(total) answered")
        }
        self.state = state
        self.log = log
        runner = ServerRunner(
            configuration: .init(
                host: configuration.host,
                port: configuration.port,
                tls: configuration.tls,
                threadName: Service.threadName,
                bodyLimit: Service.bodyLimit
            )
        )
        recordFile = configuration.recordFile
        problem =
            configuration.maxConcurrentStreams > 0
            ? configuration.serviceProblem : "maxConcurrentStreams must be positive"
        let (keepInMemory, onAccepted, onRefused) =
            (configuration.recordInMemory, configuration.onAccepted, configuration.onRefused)
        let maxConcurrentStreams = configuration.maxConcurrentStreams
        makeHandler = { connection, file in
            MockConnection(
                connection: connection,
                service: makeService(),
                state: state,
                recording: MockRecording(
                    log: log,
                    keepInMemory: keepInMemory,
                    file: file,
                    onAccepted: onAccepted,
                    onRefused: onRefused
                ),
                maxConcurrentStreams: maxConcurrentStreams
            )
        }
    }

    deinit { stop() }

    /// Binds, listens and starts the server thread. Does nothing when already started.
    /// - Throws: ``MockServerError`` `.invalidConfiguration`, `.listen` (address in use, bad host), `.tls`
    ///   (certificate, key or CA not loadable), `.recordFile`.
    public func start() throws(MockServerError) {
        if let problem { throw MockServerError(.invalidConfiguration, problem) }
        try runner.start(recordFile: recordFile, makeHandler: makeHandler)
    }

    /// Closes the listening socket and every connection and joins the thread. Safe to call more than once.
    public func stop() { runner.stop() }

    /// The TCP port the server listens on (the ephemeral one when configured with port 0); 0 before ``start()``.
    public var port: Int { runner.port }

    /// The script in force; setting it (from any thread) replaces it and resets its counters. Open
    /// connections take their `"all"` and index connection rules from the new script at once (see
    /// ``MockConnectionRule``).
    public var script: Script {
        get { state.script }
        set {
            state.script = newValue
            runner.wake()
        }
    }

    /// Changes the script in place, atomically; counters restart, as for setting ``script``.
    public func updateScript(_ body: (inout Script) -> Void) {
        state.update(body)
        runner.wake()
    }

    /// Answered requests kept in memory, oldest first (empty when `recordInMemory` is off).
    public var requests: [Record] { log.records }

    /// How many requests were answered since start (or ``clearRequests()``), whether kept in memory or not.
    /// Refused (RST_STREAM), never-answered and unrecorded requests (another route, e.g. FCM's token
    /// endpoint) are not counted.
    public var answeredCount: Int { log.total }

    /// How many TCP connections were accepted since start (connection ids run 1...this).
    public var acceptedConnections: Int { state.acceptedConnections }

    /// Forgets the recorded requests and resets ``answeredCount``.
    public func clearRequests() { log.clear() }

    /// Suspends until at least `count` requests were answered (see ``answeredCount``), then returns
    /// ``requests``.
    /// - Throws: ``MockServerError`` `.timeout` when `timeout` passes first.
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async throws -> [Record] {
        try await log.wait(count: count, timeout: timeout)
    }

    /// The version of libnghttp2 the mocks link, e.g. `1.52.0`.
    public static var nghttp2Version: String { ServerRunner.nghttp2Version }
}
