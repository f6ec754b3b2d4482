import APNsMock
import Foundation
import RelayAPNs
import RelayAllocator
import RelayCLI
import RelayCore
import RelayCurl
import RelayHTTP
import RelayPostgres
import RelaySQLite
import RelayServer
import RelayStore

/// `push-relay serve`: the relay until SIGINT/SIGTERM, then a graceful stop.
///
/// With no apps configured it serves a development app (`dev`, topic `com.example.chat`) whose API key is
/// kept in `<data dir>/dev-api-key` and printed on a line starting `API key:`. Apps without APNs
/// credentials send to a mock APNs started in this process over TLS on loopback; apps without an FCM
/// service account, to a mock FCM likewise; apps without a VAPID key, to a mock push service likewise.
enum ServeCommand {
    static let help = """
        usage: push-relay serve [--config FILE] [--host ADDR] [--port N] [--admin-port N] [--log-level LEVEL]
          settings come from defaults, then --config (or PUSH_RELAY_CONFIG), then PUSH_RELAY_* variables,
          then these options; 'push-relay config check' prints the result. --admin-port is the admin
          listener's (/metrics, /readyz per app; default 8081, a free one with --port 0).
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: ["help"],
            options: ["config", "host", "port", "admin-port", "log-level"],
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        do {
            return try await serve(arguments)
        } catch let problem as Arguments.Problem {
            throw problem  // a command-line mistake: plain text, exit status 2
        } catch {
            // What stops the start (the configuration, the store, the listener) as a JSON line like the rest,
            // naming the instance once it is known.
            var logger = Logger(label: "push-relay", level: .info)
            var error = error
            if let failure = error as? StartFailure {
                logger = logger.with(["relay.instance": failure.instanceId])
                error = failure.error
            }
            if let invalid = error as? Configuration.Invalid {
                logger.critical("invalid configuration", ["problems": invalid.problems.joined(separator: "; ")])
            } else {
                logger.critical("cannot start", ["error": "\(error)"])
            }
            return 1
        }
    }

    /// Runs the relay for `arguments` until a signal stops it.
    private static func serve(_ arguments: Arguments) async throws -> Int32 {
        let loaded = try ConfigurationFile.load(arguments)
        var configuration = loaded.configuration
        if let host = arguments.value("host") { configuration.http.host = host }
        if let port = try arguments.integer("port") { configuration.http.port = port }
        if let port = try arguments.integer("admin-port") { configuration.http.admin.port = port }
        if let level = arguments.value("log-level") {
            guard let parsed = Logger.Level(rawValue: level) else {
                throw Arguments.Problem(
                    description: "--log-level " + Logger.Level.refusal(of: level)
                )
            }
            configuration.log.level = parsed
        }
        try configuration.validate()  // with the options applied (a --port out of range), before anything is made
        // Each connection takes a descriptor: lift the soft limit (often 1,024) to the hard one before listening.
        OpenFileLimit.raiseToHardLimit()
        // Resolved once: on PostgreSQL an id left empty is a new random one at each resolution. Every line of
        // the relay names it, the storage's and the lifecycle's too.
        configuration.delivery.instanceId = configuration.resolvedInstanceId()
        do {
            return try await run(configuration, deprecations: loaded.deprecations)
        } catch let problem as Arguments.Problem {
            throw problem
        } catch {
            throw StartFailure(error: error, instanceId: configuration.delivery.instanceId)
        }
    }

    /// What stopped a start once the instance id was resolved (the id names the last line too).
    private struct StartFailure: Error {
        let error: any Error
        let instanceId: String
    }

    /// Runs the relay of `configuration` (validated, its instance id resolved) until a signal stops it.
    private static func run(_ configuration: Configuration, deprecations: [String]) async throws -> Int32 {
        var configuration = configuration
        let logger = Logger(label: "push-relay", level: configuration.log.level)
            .with(["relay.instance": configuration.delivery.instanceId])
        for notice in deprecations + configuration.warnings { logger.warning(notice) }

        if let warning = Allocator.warning {
            guard !Allocator.isSplit else {
                logger.critical(warning, ["allocator": Allocator.summary])
                return 1
            }
            logger.warning(warning, ["allocator": Allocator.summary])
        }
        let curl = LibcurlInfo.current
        guard curl.hasHTTP2 else {
            logger.critical("the linked libcurl has no HTTP/2; APNs needs it", ["libcurl": curl.version])
            return 1
        }
        if !curl.isAtLeast8 {
            logger.warning(
                "libcurl below 8 resets every finished HTTP/2 stream and cannot reuse h2c connections: install 8.x",
                ["libcurl": curl.version]
            )
        }

        let store: any Store =
            switch try StorageLocation.configured(configuration.storage) {
            case .postgres(let url):
                // Another process took this relay's instance lock while the database was away (the store
                // logged it): going on would lease under a shared id, and stopping gracefully needs the store.
                try PostgresStore.pool(
                    url: url,
                    size: configuration.storage.postgres.poolSize,
                    logger: logger,
                    statementTimeout: Double(configuration.storage.postgres.statementTimeoutSeconds)
                ) { _ in exit(1) }
            case .sqlite(let path):
                // One connection: the pool adds the request deadline and the storage down/up lines.
                StorePool(
                    members: [
                        try SQLiteStore(
                            path: path,
                            logger: logger,
                            // A call waits for a lock no longer than a request may wait to start one.
                            busyTimeoutMilliseconds: min(
                                configuration.storage.busyTimeoutMilliseconds,
                                configuration.storage.requestDeadlineMilliseconds
                            ),
                            // The file's lock before the file is opened or migrated.
                            claiming: configuration.delivery.instanceId
                        )
                    ],
                    logger: logger.with(["component": "storage"])
                )
            }
        // The instance is this relay's before anything is written beside the store: a second relay refused
        // here leaves the first one's development files (its mocks' ports and keys) as they are.
        try await store.claimInstance(configuration.delivery.instanceId)
        let dataDirectory = URL(fileURLWithPath: configuration.storage.sqlitePath).deletingLastPathComponent().path
        let development = try DevelopmentSetup(dataDirectory: dataDirectory, logger: logger)
        let developmentApp = configuration.apps.isEmpty
        if developmentApp { configuration.apps = [try development.app()] }
        // FCM and Web Push first: whether an app is a development one is read from its APNs credentials.
        let fcmMock = try development.attachMockFCM(to: &configuration.apps)
        let http = configuration.http
        let webPushMock = try development.attachMockWebPush(
            to: &configuration.apps,
            avoiding: Set([http.port] + (http.admin.enabled ? [http.admin.resolvedPort(publicPort: http.port)] : []))
        )
        let mock = try development.attachMock(to: &configuration.apps)
        let relay = try Relay(configuration: configuration, store: store, logger: logger)
        // Caught from before the command says it is up (``Signals``).
        let signals = Signals()
        if !signals.registeredInTime {
            logger.warning("stop signals not watched after 10 s of waiting; one sent now may be lost")
        }
        let relayServices = try await relay.prepare()
        // Once listening: a relay that cannot start (the port is taken) prints no key to use.
        if developmentApp {
            say("API key: \(try development.apiKey())")
            say("User tokens (with X-PushRelay-App: \(DevelopmentSetup.appId)): \(development.userTokenCommand)")
        }
        say("PushRelay listening on \(relay.scheme)://\(configuration.http.host):\(relay.port)")
        if let port = relay.adminPort { say("PushRelay admin on http://\(configuration.http.admin.host):\(port)") }
        // The mocks start first and stop last: the dispatcher's last sends still reach them.
        var services: [ServiceGroup.Entry] = []
        if let fcmMock { services.append(.init("mock-fcm", CloseOnShutdown { fcmMock.stop() })) }
        if let webPushMock { services.append(.init("mock-webpush", CloseOnShutdown { webPushMock.stop() })) }
        if let mock { services.append(.init("mock-apns", CloseOnShutdown { mock.stop() })) }
        let group = ServiceGroup(
            services: services + relayServices,
            settings: .init(
                signals: signals,
                // Past the bound, what is still in flight keeps its outbox row and is sent on the next start.
                shutdownTimeout: .seconds(configuration.shutdownTimeoutSeconds),
                escalation: .exit(1)
            ),
            logger: logger.with(["component": "lifecycle"])
        )
        do {
            try await group.run()
        } catch {
            logger.critical("stopped", ["error": "\(error)"])
            return 1
        }
        return 0
    }
}
