import Foundation
import RelayAPNs
import RelayAllocator
import RelayCLI
import RelayCore
import RelayCrypto
import RelayCurl
import RelaySQLite
import RelayServer
import RelayStore

/// `relay-bench fanout`: a ``Relay`` over the SQLite file `--db` (seeded by `relay-bench seed` for the same
/// `--platform`), its app sending to the mock APNs at `--url` (ios, the default), to the mock FCM at
/// `--fcm-url` as the service account `--service-account` (android), or to the mock push service at
/// `--web-url` signing with the VAPID key `--vapid-key` (web; `--ca` verifies each); posts one
/// did-send-message webhook for the seeded room over HTTP and times it until no delivery is pending. Prints one JSON line: devices, sent, seconds (POST to last
/// delivery recorded), accept_seconds (the POST alone), per_second, the process's CPU seconds (user + system,
/// the relay runs in it) per 100,000 pushes, RSS before the POST, peak RSS (KiB) and the allocator
/// (``Allocator/summary``). `--apns-connections N`
/// sets `delivery.apnsConnections`; `--badge` turns on the app's badges (`apps[].badge`); the relay logs at
/// `--log-level` (default info, as `push-relay serve` does: a line per push) to standard error.
enum FanoutCommand {
    static let usage = """
        relay-bench fanout --db FILE --url https://127.0.0.1:PORT [--ca FILE] [--key FILE.p8] [--key-id KID]
                           [--team TEAM] [--batch-size N] [--concurrency N] [--apns-connections N]
                           [--timeout SECONDS] [--badge] [--log-level LEVEL]
        relay-bench fanout --platform android --db FILE --fcm-url https://127.0.0.1:PORT [--ca FILE]
                           --service-account FILE [--batch-size N] [--concurrency N] [--timeout SECONDS]
        relay-bench fanout --platform web --db FILE --web-url https://127.0.0.1:PORT [--ca FILE]
                           --vapid-key FILE [--batch-size N] [--concurrency N] [--timeout SECONDS]
        """

    /// What the run measured.
    struct Report: Encodable {
        var devices: Int
        var sent: Int
        var failed: Int
        var seconds: Double
        var accept_seconds: Double
        var per_second: Double
        var cpu_seconds_per_100k: Double
        var rss_before_kib: Int
        var peak_rss_kib: Int
        var batch_size: Int
        var concurrency: Int
        var apns_connections: Int
        var allocator: String
    }

    /// The webhook's 202 answer.
    struct Accepted: Decodable {
        var notificationId: String
        var devices: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let path = try arguments.required("db")
        let apiKey = try APIKey.generate()
        var configuration = try Self.configuration(arguments, apiKey: apiKey)
        configuration.http.port = 0
        configuration.storage.sqlitePath = path
        let timeout = Duration.seconds(try arguments.positiveInteger("timeout", default: 600))
        let logger = Logger(label: "relay-bench", level: .warning)
        let store = try SQLiteStore(path: path, logger: logger)
        // A second connection for polling, so counting never waits behind the dispatcher's store calls.
        let observer = try SQLiteStore(path: path, logger: logger)
        let relay = try Relay(
            configuration: configuration,
            store: store,
            logger: Logger(label: "push-relay", level: configuration.log.level)
        )
        try await relay.start()
        // Warm-up, as the client-only run has: one push to the seeded warm-up device connects to the service
        // and proves the provider token (APNs) or fetches the access token (FCM), as a relay that has been
        // running has done long before a big room posts.
        /// Posts the room's webhook and waits until all of it is sent: the 202, the time to it and to the end.
        func fanOut(room: String) async throws -> (accepted: Accepted, acceptSeconds: Double, seconds: Double) {
            let decided = relay.metrics.attemptsDecided
            let started = ContinuousClock.now
            let accepted = try await postWebhook(port: relay.port, apiKey: apiKey, room: room)
            let acceptSeconds = (ContinuousClock.now - started).timeInterval
            try await waitUntilSent(decided + accepted.devices, observer, relay, since: started, timeout: timeout)
            return (accepted, acceptSeconds, (ContinuousClock.now - started).timeInterval)
        }
        _ = try await fanOut(room: SeedCommand.warmUpRoom)

        let rssBefore = ProcessMemory.residentKiB
        let cpuBefore = ProcessCPU.selfSeconds
        let (accepted, acceptSeconds, seconds) = try await fanOut(room: SeedCommand.room)
        let cpu = ProcessCPU.selfSeconds - cpuBefore
        let peak = ProcessMemory.peakResidentKiB
        await relay.shutdown()

        let id = try UUID(uuidString: accepted.notificationId).orThrow("bad notification id")
        let summary = try await observer.notification(appId: SeedCommand.appId, id: id, limit: 1)?.summary
        let counts = try summary.orThrow("notification not found").counts
        let report = Report(
            devices: accepted.devices,
            sent: counts.sent,
            failed: counts.failed + counts.retired,
            seconds: seconds,
            accept_seconds: acceptSeconds,
            per_second: Double(accepted.devices) / seconds,
            cpu_seconds_per_100k: ProcessCPU.per100k(cpu, pushes: accepted.devices),
            rss_before_kib: rssBefore,
            peak_rss_kib: peak,
            batch_size: configuration.delivery.batchSize,
            concurrency: configuration.delivery.concurrency,
            apns_connections: configuration.delivery.apnsConnections,
            allocator: Allocator.summary
        )
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return counts.sent == accepted.devices ? 0 : 1
    }

    /// The bench relay's configuration from the arguments: one app (``SeedCommand/appId``) selected by
    /// `apiKey`, sending to the mock of `--platform`, and the delivery settings; its port and store unset.
    static func configuration(_ arguments: Arguments, apiKey: String) throws -> Configuration {
        var configuration = Configuration()
        configuration.delivery.batchSize = try arguments.positiveInteger(
            "batch-size",
            default: configuration.delivery.batchSize
        )
        configuration.delivery.concurrency = try arguments.positiveInteger(
            "concurrency",
            default: configuration.delivery.concurrency
        )
        configuration.delivery.apnsConnections = try arguments.positiveInteger(
            "apns-connections",
            default: configuration.delivery.apnsConnections
        )
        // One app here: let it use every slot, as the client-only run does.
        configuration.delivery.perAppConcurrency = configuration.delivery.concurrency
        let level = arguments.value("log-level", default: Logger.Level.info.rawValue)
        configuration.log.level = try Logger.Level(rawValue: level).orThrow("unknown --log-level '\(level)'")
        var app = Configuration.App(
            id: SeedCommand.appId,
            topic: BenchDefaults.topic,
            apiKeySHA256: [APIKey.hash(apiKey)]
        )
        let caFile = arguments.value("ca", default: BenchDefaults.caFile)
        switch try arguments.platform() {
        case .ios:
            app.apns = .init(
                credentials: .init(
                    keyFile: arguments.value("key", default: BenchDefaults.keyFile),
                    keyId: arguments.value("key-id", default: BenchDefaults.keyId),
                    teamId: arguments.value("team", default: BenchDefaults.teamId)
                ),
                defaultEnvironment: .production,
                endpoints: .init(both: .init(baseURL: try arguments.required("url"), caFile: caFile))
            )
        case .android:
            app.fcm = .init(
                serviceAccountFile: try arguments.required("service-account"),
                endpoint: .init(baseURL: try arguments.required("fcm-url"), caFile: caFile)
            )
        case .web:
            app.webPush = .init(
                vapidKeyFile: try arguments.required("vapid-key"),
                subject: BenchDefaults.webPushSubject,
                mock: .init(baseURL: try arguments.required("web-url"), caFile: caFile)
            )
        }
        app.badge = arguments.flag("badge")
        configuration.apps = [app]
        return configuration
    }
    /// Waits until the relay's metrics count `target` attempts decided (woken by the relay as the last one is
    /// decided), then until no delivery is pending in the database (read every 250 µs, one index seek, while
    /// the last results are recorded): the end is known to within a quarter of a millisecond, and nothing
    /// here wakes while the relay sends. Polling the metrics instead woke this process hundreds or thousands
    /// of times a second on the cores the relay needs, or saw the end late. Shuts the relay down and throws
    /// after `timeout`.
    private static func waitUntilSent(
        _ target: Int,
        _ observer: SQLiteStore,
        _ relay: Relay,
        since started: ContinuousClock.Instant,
        timeout: Duration
    ) async throws {
        let decided = Task { await relay.metrics.waitUntilAttemptsDecided(target) }
        let deadline = Task {
            try await Task.sleep(until: started + timeout, clock: .continuous)
            decided.cancel()
        }
        await decided.value
        deadline.cancel()
        while true {
            if relay.metrics.attemptsDecided >= target, !(try await observer.hasPendingDeliveries()) { return }
            guard ContinuousClock.now - started < timeout else {
                await relay.shutdown()
                throw Failure(description: "deliveries still pending after \(timeout)")
            }
            try await Task.sleep(for: .microseconds(250))
        }
    }

    /// `POST /v1/webhooks/did-send-message` for a seeded room from a sender outside it, through libcurl
    /// (``OutboundHTTP``): FoundationNetworking's URLSession keeps waking threads long after its request
    /// (about 8,000 context switches a second here), which the fan-out would be measured with.
    static func postWebhook(port: Int, apiKey: String, room: String) async throws -> Accepted {
        let message = BenchDefaults.chatMessage(id: UUID().lowercasedString)
        let body = try JSONSerialization.data(withJSONObject: [
            "roomId": room, "senderId": message.senderId, "senderName": message.senderName ?? "",
            "roomName": message.roomName ?? "", "text": BenchDefaults.text, "messageId": message.messageId ?? "",
        ])
        let (status, answer) = try await OutboundHTTP.post(
            url: "http://127.0.0.1:\(port)/v1/webhooks/did-send-message",
            body: body,
            headers: [("Authorization", "Bearer \(apiKey)"), ("Content-Type", "application/json")],
            timeout: .seconds(600),
            keepingBodyUpTo: 64 * 1024
        )
        guard status == 202 else {
            throw Failure(description: "webhook answered \(status): " + String(decoding: answer, as: UTF8.self))
        }
        return try JSONDecoder().decode(Accepted.self, from: answer)
    }
}

extension Optional {
    /// The value, or a ``FanoutCommand/Failure`` saying `what`.
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw FanoutCommand.Failure(description: what) }
        return self
    }
}
