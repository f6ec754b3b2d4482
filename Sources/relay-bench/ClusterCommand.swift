import Foundation
import RelayCLI
import RelayCore

/// `relay-bench cluster`: the relays of ``BenchRelays`` with `--devices` devices seeded in one room; posts
/// one did-send-message webhook for the room to the first instance (all instances send) and times it until
/// no delivery is pending in the store. Prints one JSON line: devices, sent, seconds, per_second, instances,
/// the relay processes' CPU seconds (user + system from `/proc/<pid>/stat`, summed) per 100,000 pushes and
/// each instance's CPU seconds, and on PostgreSQL the server's CPU seconds per 100,000 pushes. `--store
/// sqlite` runs the same single process on a SQLite file: the store alone differs.
enum ClusterCommand {
    static let usage = """
        relay-bench cluster --devices N [--timeout SECONDS] [--statements FILE] \(BenchRelays.usage)
        """

    /// What the run measured.
    struct Report: Encodable {
        var devices: Int
        var sent: Int
        var seconds: Double
        var accept_seconds: Double
        var per_second: Double
        var cpu_seconds_per_100k: Double
        /// The PostgreSQL server's CPU seconds per 100,000 pushes; nil on SQLite.
        var server_cpu_seconds_per_100k: Double?
        var store: String
        var instances: Int
        /// Each instance's CPU seconds during the fan-out: every one took part.
        var instance_cpu_seconds: [Double]
        var apns_connections: Int
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let devices = try arguments.positiveInteger("devices", default: 1000)
        let timeout = Duration.seconds(try arguments.positiveInteger("timeout", default: 600))
        let relays = try await BenchRelays(arguments) {
            try await SeedCommand.seed($0, devices: devices, platform: .ios, concurrency: BenchRelays.seedConnections)
        }
        defer { relays.stop() }

        // Warm-up: one push through the first instance, as `relay-bench fanout` does; the others connect to
        // the mock with their first deliveries.
        let first = relays.ports[0]
        _ = try await FanoutCommand.postWebhook(port: first, apiKey: relays.apiKey, room: SeedCommand.warmUpRoom)
        try await relays.waitUntilNothingPending(since: .now, timeout: timeout)

        let statements = arguments.value("statements", default: "")
        if !statements.isEmpty, let cluster = relays.cluster { try await StatementStats.reset(cluster) }
        let cpuBefore = relays.relayCPU()
        let server = relays.serverSnapshot()
        let started = ContinuousClock.now
        let accepted = try await FanoutCommand.postWebhook(port: first, apiKey: relays.apiKey, room: SeedCommand.room)
        let acceptSeconds = (ContinuousClock.now - started).timeInterval
        try await relays.waitUntilNothingPending(since: started, timeout: timeout)
        let seconds = (ContinuousClock.now - started).timeInterval
        let cpu = zip(relays.relayCPU(), cpuBefore).map { $0 - $1 }
        let serverCPU = relays.serverCPU(since: server)
        if !statements.isEmpty, let cluster = relays.cluster {
            try await StatementStats.top(cluster).write(toFile: statements, atomically: true, encoding: .utf8)
        }

        let id = try UUID(uuidString: accepted.notificationId).orThrow("bad notification id")
        let summary = try await relays.observer.notification(appId: SeedCommand.appId, id: id, limit: 1)?.summary
        let sent = try summary.orThrow("notification not found").counts.sent
        let report = Report(
            devices: accepted.devices,
            sent: sent,
            seconds: seconds,
            accept_seconds: acceptSeconds,
            per_second: Double(accepted.devices) / seconds,
            cpu_seconds_per_100k: ProcessCPU.per100k(cpu.reduce(0, +), pushes: accepted.devices),
            server_cpu_seconds_per_100k: relays.storeName == "postgres"
                ? ProcessCPU.per100k(serverCPU, pushes: accepted.devices) : nil,
            store: relays.storeName,
            instances: relays.processes.count,
            instance_cpu_seconds: cpu,
            apns_connections: relays.configuration.delivery.apnsConnections
        )
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return sent == accepted.devices ? 0 : 1
    }
}
