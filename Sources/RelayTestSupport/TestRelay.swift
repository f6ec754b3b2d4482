import Foundation
import RelayCore
import RelayHTTP
import RelayOutbox
import RelayPostgres
import RelaySQLite
import RelayServer
import RelayStore
import Synchronization

/// One relay under test: built from a configuration, a store choice and the mocks its configuration points
/// at, run in one of three ways (``Mode``), with one set of helpers to call it, wait on it and stop it.
///
/// ``run(_:)`` and ``with(_:mode:store:options:directory:_:)`` always stop the relay, also when the body
/// throws. ``start()`` after ``stop()`` starts a new relay on the same configuration and store (a restart).
public final class TestRelay: Sendable {
    /// How the relay runs.
    public enum Mode: Sendable {
        /// In this process; ``call(_:_:json:body:bearer:headers:)`` hands requests to its router
        /// (``RelayServer/Relay/respond(to:)``) without a socket, so the HTTP server's own checks (methods,
        /// header checks, limits, access log) are skipped. Its services run as in ``live``.
        case router
        /// In this process, with requests over HTTP to its listener on 127.0.0.1.
        case live
        /// A child `push-relay serve --config <file>`, the configuration written as JSON into ``directory``;
        /// it opens the store its configuration names (``StoreChoice`` and ``Options`` do not apply).
        case process
    }

    /// How an in-process relay opens its store.
    public struct StoreChoice: Sendable {
        let open: @Sendable (Configuration, any TimeSource) throws -> any Store

        /// A store opened by `open` from the relay's configuration and clock.
        public init(_ open: @escaping @Sendable (Configuration, any TimeSource) throws -> any Store) {
            self.open = open
        }

        /// The SQLite file at `storage.sqlitePath` on the relay's clock, or one PostgreSQL connection to
        /// `storage.postgres.url` (each statement at most `statementTimeout` SECONDS) when that is set.
        public static func configured(statementTimeout: Double = 10) -> StoreChoice {
            StoreChoice { configuration, time in
                if let url = configuration.storage.postgres.url {
                    return try PostgresStore(url: url, logger: .disabled(), statementTimeout: statementTimeout)
                }
                return try SQLiteStore(path: configuration.storage.sqlitePath, logger: .disabled(), timeSource: time)
            }
        }

        /// A pool of `storage.postgres.poolSize` connections to `storage.postgres.url`, as `serve` opens it
        /// (each statement at most `statementTimeout` SECONDS).
        public static func postgresPool(statementTimeout: Double = 10) -> StoreChoice {
            StoreChoice { configuration, _ in
                let postgres = configuration.storage.postgres
                guard let url = postgres.url else { throw TestFailure(description: "storage.postgres.url is not set") }
                return try PostgresStore.pool(
                    url: url,
                    size: postgres.poolSize,
                    logger: .disabled(),
                    statementTimeout: statementTimeout
                )
            }
        }
    }

    /// What an in-process relay is built with besides its configuration and store.
    public struct Options: Sendable {
        /// The relay's and its store's clock.
        public var time: any TimeSource
        /// How retired tokens are POSTed to apps' `feedbackURL`s.
        public var feedback: FeedbackSender.Settings
        /// How often the relay reads the store's gauges.
        public var gaugeInterval: Duration
        /// The in-process relay's log (its store's stays off).
        public var logger: Logger

        public init(
            time: any TimeSource = SystemTimeSource(),
            feedback: FeedbackSender.Settings = .init(),
            gaugeInterval: Duration = .seconds(10),
            logger: Logger = .disabled()
        ) {
            self.time = time
            self.feedback = feedback
            self.gaugeInterval = gaugeInterval
            self.logger = logger
        }
    }

    /// The relay while it runs.
    private enum Running: Sendable {
        case inProcess(Relay)
        case process(RelayProcess, port: Int, adminPort: Int?)
    }

    public let configuration: Configuration
    public let mode: Mode
    public let store: StoreChoice
    public let options: Options
    /// Where a ``Mode/process`` relay's configuration file and its output go.
    public let directory: URL
    private let running = Mutex<Running?>(nil)

    public init(
        configuration: Configuration,
        mode: Mode = .live,
        store: StoreChoice = .configured(),
        options: Options = Options(),
        directory: URL = FileManager.default.temporaryDirectory
    ) {
        self.configuration = configuration
        self.mode = mode
        self.store = store
        self.options = options
        self.directory = directory
    }

    /// Starts a relay, runs `body` with it, and always stops it (also when `body` throws).
    public static func with<T>(
        _ configuration: Configuration,
        mode: Mode = .live,
        store: StoreChoice = .configured(),
        options: Options = Options(),
        directory: URL = FileManager.default.temporaryDirectory,
        _ body: (TestRelay) async throws -> T
    ) async throws -> T {
        let relay = TestRelay(
            configuration: configuration,
            mode: mode,
            store: store,
            options: options,
            directory: directory
        )
        return try await relay.run { try await body(relay) }
    }

    /// Starts the relay, runs `body`, and always stops it (also when `body` or the start throws).
    public func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            try await start()
            let result = try await body()
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    /// Starts a relay; for a ``Mode/process`` one, waits (up to 60 s) until it says where it listens.
    /// - Throws: ``TestFailure`` when one is running already or the process never listens; what opening
    ///   the store, `Relay.init` or `Relay.start()` throws.
    public func start() async throws {
        guard running.withLock({ $0 == nil }) else { throw TestFailure(description: "the relay is running") }
        let started: Running
        switch mode {
        case .router, .live:
            let relay = try Relay(
                configuration: configuration,
                store: try store.open(configuration, options.time),
                time: options.time,
                logger: options.logger,
                feedback: options.feedback,
                gaugeInterval: options.gaugeInterval
            )
            do { try await relay.start() } catch {
                await relay.shutdown()
                throw error
            }
            started = .inProcess(relay)
        case .process:
            started = try await startProcess()
        }
        running.withLock { $0 = started }
    }

    private func startProcess() async throws -> Running {
        let name = "relay-\(UUID().uuidString.lowercased())"
        let file = directory.appendingPathComponent("\(name).json")
        try JSONEncoder().encode(configuration).write(to: file)
        let process = try RelayProcess(["serve", "--config", file.path], outputIn: directory, name: name)
        do {
            let port = try await process.listeningPort()
            var adminPort: Int?
            if configuration.http.admin.enabled {
                let address = try await process.line(startingWith: "PushRelay admin on ")
                adminPort = URL(string: address)?.port
            }
            return .process(process, port: port, adminPort: adminPort)
        } catch {
            await Self.stop(process)
            throw error
        }
    }

    /// Stops the running relay, if any: a graceful shutdown in process, SIGTERM to a process (SIGKILL when
    /// it has not exited within 60 s). Its store is released.
    public func stop() async {
        let current = running.withLock { running -> Running? in
            defer { running = nil }
            return running
        }
        switch current {
        case .inProcess(let relay): await relay.shutdown()
        case .process(let process, _, _): await Self.stop(process)
        case nil: break
        }
    }

    private static func stop(_ process: RelayProcess) async {
        process.signal(SIGTERM)
        _ = try? await process.exitStatus(timeout: .seconds(60))
    }

    // MARK: What runs

    /// The in-process relay (``Mode/router`` or ``Mode/live``).
    /// - Throws: ``TestFailure`` when none is running.
    public var relay: Relay {
        get throws {
            guard case .inProcess(let relay) = running.withLock({ $0 }) else {
                throw TestFailure(description: "no in-process relay is running")
            }
            return relay
        }
    }

    /// The `push-relay serve` process (``Mode/process``).
    /// - Throws: ``TestFailure`` when none is running.
    public var process: RelayProcess {
        get throws {
            guard case .process(let process, _, _) = running.withLock({ $0 }) else {
                throw TestFailure(description: "no relay process is running")
            }
            return process
        }
    }

    /// The HTTP port the relay listens on.
    /// - Throws: ``TestFailure`` when it is not running.
    public var port: Int {
        get throws {
            switch running.withLock({ $0 }) {
            case .inProcess(let relay): return relay.port
            case .process(_, let port, _): return port
            case nil: throw TestFailure(description: "the relay is not running")
            }
        }
    }

    /// The `http.admin` listener's port; nil when it is off.
    /// - Throws: ``TestFailure`` when the relay is not running.
    public var adminPort: Int? {
        get throws {
            switch running.withLock({ $0 }) {
            case .inProcess(let relay): return relay.adminPort
            case .process(_, _, let adminPort): return adminPort
            case nil: throw TestFailure(description: "the relay is not running")
            }
        }
    }

    // MARK: Requests

    /// Sends one request: `Authorization: Bearer <bearer>` when given, a JSON body from `json` (an object)
    /// or `body` (bytes), then `headers`, which win. Over HTTP, or to the router in ``Mode/router``.
    public func call(
        _ method: String,
        _ path: String,
        json: Any? = nil,
        body: Data? = nil,
        bearer: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> TestResponse {
        if mode == .router {
            return try await route(method, path, json: json, body: body, bearer: bearer, headers: headers)
        }
        let (status, data, fields) = try await exchange(
            port: try port,
            method,
            path,
            bearer: bearer,
            json: json,
            body: body,
            headers: headers
        )
        return TestResponse(status: status, body: data, headers: fields)
    }

    /// `GET path` on the `http.admin` listener, without a key.
    /// - Throws: ``TestFailure`` when the admin listener is off.
    public func adminCall(_ path: String) async throws -> TestResponse {
        guard let port = try adminPort else { throw TestFailure(description: "the admin listener is off") }
        return try await Self.get(port: port, path: path)
    }

    /// `GET path` on loopback `port` without a key (a probe, `/metrics`); with `within`, the server must
    /// answer in that time (a scrape that must not wait for a frozen store).
    /// - Throws: ``TestFailure`` when no answer came `within`; URLSession's error when the server does not
    ///   answer at all.
    public static func get(port: Int, path: String, within limit: Duration? = nil) async throws -> TestResponse {
        let get: @Sendable () async throws -> TestResponse = {
            let (status, data, fields) = try await exchange(
                port: port,
                "GET",
                path,
                bearer: nil,
                json: nil,
                body: nil,
                headers: [:]
            )
            return TestResponse(status: status, body: data, headers: fields)
        }
        guard let limit else { return try await get() }
        return try await withThrowingTaskGroup(of: TestResponse?.self) { group in
            group.addTask { try await get() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw TestFailure(description: "GET \(path) not answered within \(limit)") }
            return first
        }
    }

    /// Polls `GET /v1/notifications/{id}` (with `bearer`) until no delivery of it is pending and returns
    /// that answer. Any answer but 200 fails, except a 503 when `retryingUnavailable` (a store coming back
    /// after an outage).
    /// - Throws: ``TestFailure`` on another status or when deliveries are still pending after `timeout`.
    public func settled(
        _ id: String,
        bearer: String?,
        retryingUnavailable: Bool = false,
        timeout: Duration = .seconds(90)
    ) async throws -> TestResponse {
        struct Counts: Decodable {
            struct Inner: Decodable { var pending: Int }
            var counts: Inner
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let answer = try await call("GET", "/v1/notifications/\(id)", bearer: bearer)
            var pending = "no answer"
            switch answer.status {
            case 200:
                let counts = try answer.decode(Counts.self).counts
                if counts.pending == 0 { return answer }
                pending = "\(counts.pending) pending"
            case 503 where retryingUnavailable:
                pending = "503 \(answer.text)"
            default:
                throw TestFailure(description: "GET /v1/notifications/\(id): \(answer.status) \(answer.text)")
            }
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "notification \(id) not settled: \(pending)")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// One request handed to the in-process relay's router, shaped as the HTTP server would hand it.
    private func route(
        _ method: String,
        _ path: String,
        json: Any?,
        body: Data?,
        bearer: String?,
        headers: [String: String]
    ) async throws -> TestResponse {
        let relay = try relay
        var fields: [String: String] = ["host": "127.0.0.1:\(relay.port)"]
        var bytes = Data()
        if let bearer { fields["authorization"] = "Bearer \(bearer)" }
        if let json { bytes = try JSONSerialization.data(withJSONObject: json) }
        if let body { bytes = body }
        if json != nil || body != nil { fields["content-type"] = "application/json" }
        fields["content-length"] = "\(bytes.count)"
        for (name, value) in headers { fields[name.lowercased()] = value }
        let response: HTTPResponse
        do {
            let request = try HTTPRequest(
                method: method,
                target: path,
                headers: HTTPHeaders(fields.map { ($0.key, $0.value) }),
                body: bytes,
                remoteAddress: "127.0.0.1"
            )
            response = await relay.respond(to: request)
        } catch let error as HTTPError {
            response = error.response
        }
        var answered: [String: String] = [:]
        for (name, value) in response.headers { answered[name.lowercased()] = value }
        return TestResponse(status: response.status, body: response.body, headers: answered)
    }
}
