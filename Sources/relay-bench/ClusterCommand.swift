import Foundation
import RelayCLI
import RelayCore
import RelayCrypto
import RelayCurl
import RelayPostgres
import RelayStore
import RelayTestSupport

/// `relay-bench cluster`: `--instances` relays, each its own `push-relay serve` process (`--relay`, default
/// `.build/release/push-relay`) on a port of its own, all on ONE throwaway PostgreSQL cluster
/// (``RelayTestSupport/PostgresCluster``: `initdb` and `pg_ctl` in a temporary folder, a Unix socket only)
/// that `--devices` devices were seeded into, sending to the mock APNs at `--url`. Posts one did-send-message
/// webhook for the seeded room to the first instance (all instances send) and times it until no delivery is
/// pending in the store. Prints one JSON line: devices, sent, seconds, per_second, instances, and the relay
/// processes' CPU seconds (user + system from `/proc/<pid>/stat`, summed) per 100,000 pushes, and each
/// instance's CPU seconds.
/// `--poll-ms` sets `delivery.pollIntervalMilliseconds` (default 100): how soon the instances that did not
/// take the webhook see its deliveries. Other options as `relay-bench fanout`.
enum ClusterCommand {
    static let usage = """
        relay-bench cluster --instances N --devices N --url https://127.0.0.1:PORT [--relay PATH] [--ca FILE]
                            [--key FILE.p8] [--key-id KID] [--team TEAM] [--batch-size N] [--concurrency N]
                            [--apns-connections N] [--poll-ms N] [--timeout SECONDS]
        """

    /// What the run measured.
    struct Report: Encodable {
        var devices: Int
        var sent: Int
        var seconds: Double
        var accept_seconds: Double
        var per_second: Double
        var cpu_seconds_per_100k: Double
        var instances: Int
        /// Each instance's CPU seconds during the fan-out: every one took part.
        var instance_cpu_seconds: [Double]
        var apns_connections: Int
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let count = try arguments.positiveInteger("instances", default: 1)
        let devices = try arguments.positiveInteger("devices", default: 1000)
        let relayPath = URL(fileURLWithPath: arguments.value("relay", default: ".build/release/push-relay")).path
        let timeout = Duration.seconds(try arguments.positiveInteger("timeout", default: 600))
        let apiKey = try APIKey.generate()
        var configuration = try FanoutCommand.configuration(arguments, apiKey: apiKey)
        configuration.http.host = "127.0.0.1"
        configuration.delivery.pollIntervalMilliseconds = try arguments.positiveInteger("poll-ms", default: 100)

        let cluster = try await PostgresCluster.shared()
        let url = try await cluster.newDatabaseURL()
        let logger = Logger(label: "relay-bench", level: .warning)
        let observer = try PostgresStore(url: url, logger: logger)
        try await SeedCommand.seed(observer, devices: devices, platform: .ios)
        configuration.storage.postgres.url = url

        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-bench-cluster-\(UUID().uuidString.lowercased().prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configFile = "\(folder)/config.json"
        try JSONEncoder().encode(configuration).write(to: URL(fileURLWithPath: configFile))
        var instances: [(process: ChildProcess, port: Int)] = []
        defer { stop(instances.map(\.process)) }
        for index in 1...count {
            let output = "\(folder)/relay-\(index).out"
            let errors = "\(folder)/relay-\(index).err"
            // ChildProcess appends to existing files.
            for file in [output, errors] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
            let process = try ChildProcess(
                relayPath,
                ["serve", "--config", configFile, "--port", "0"],
                standardOutput: output,
                standardError: errors
            )
            instances.append((process, 0))
            instances[index - 1].port = try await listeningPort(output, process, timeout: .seconds(60))
        }

        // Warm-up: one push through the first instance, as `relay-bench fanout` does; the others connect to
        // the mock with their first deliveries.
        let first = instances[0].port
        _ = try await FanoutCommand.postWebhook(port: first, apiKey: apiKey, room: SeedCommand.warmUpRoom)
        try await waitUntilNothingPending(observer, since: .now, timeout: timeout)

        let cpuBefore = instances.map { ProcessCPU.seconds(pid: $0.process.pid) ?? 0 }
        let started = ContinuousClock.now
        let accepted = try await FanoutCommand.postWebhook(port: first, apiKey: apiKey, room: SeedCommand.room)
        let acceptSeconds = (ContinuousClock.now - started).timeInterval
        try await waitUntilNothingPending(observer, since: started, timeout: timeout)
        let seconds = (ContinuousClock.now - started).timeInterval
        let cpu = zip(instances, cpuBefore).map { (ProcessCPU.seconds(pid: $0.process.pid) ?? 0) - $1 }

        let id = try UUID(uuidString: accepted.notificationId).orThrow("bad notification id")
        let summary = try await observer.notification(appId: SeedCommand.appId, id: id, limit: 1)?.summary
        let sent = try summary.orThrow("notification not found").counts.sent
        let report = Report(
            devices: accepted.devices,
            sent: sent,
            seconds: seconds,
            accept_seconds: acceptSeconds,
            per_second: Double(accepted.devices) / seconds,
            cpu_seconds_per_100k: ProcessCPU.per100k(cpu.reduce(0, +), pushes: accepted.devices),
            instances: count,
            instance_cpu_seconds: cpu,
            apns_connections: configuration.delivery.apnsConnections
        )
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return sent == accepted.devices ? 0 : 1
    }

    /// The port in the `PushRelay listening on http://HOST:PORT` line `serve` prints to `output`.
    private static func listeningPort(_ output: String, _ process: ChildProcess, timeout: Duration) async throws -> Int
    {
        let deadline = ContinuousClock.now + timeout
        let prefix = "PushRelay listening on "
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
                let port = URLComponents(string: String(line.dropFirst(prefix.count)))?.port
            {
                return port
            }
            guard process.isRunning else { throw FanoutCommand.Failure(description: "push-relay serve ended: \(text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FanoutCommand.Failure(description: "push-relay serve did not listen within \(timeout)")
    }

    /// Waits until the store has no pending delivery (read every millisecond), or throws after `timeout`.
    private static func waitUntilNothingPending(
        _ store: PostgresStore,
        since started: ContinuousClock.Instant,
        timeout: Duration
    ) async throws {
        while try await store.hasPendingDeliveries() {
            guard ContinuousClock.now - started < timeout else {
                throw FanoutCommand.Failure(description: "deliveries still pending after \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// SIGTERM to every instance, then waits for each to end.
    private static func stop(_ processes: [ChildProcess]) {
        for process in processes { process.signal(SIGTERM) }
        for process in processes { _ = process.waitForExit() }
    }
}
