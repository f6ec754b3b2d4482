import Foundation
import RelayCLI
import RelayCore
import RelayStore

/// `relay-bench latency`: webhook-to-push latency at low load. The relays of ``BenchRelays`` (one, on
/// `--store postgres` or `sqlite`) with `--rooms` small rooms of `--room-size` iOS devices each; posts
/// `--rate` did-send-message webhooks a second for `--seconds`, to the rooms in turn, and takes each push's
/// latency as the time from just before its webhook's POST to when the mock APNs' acceptance was recorded
/// (the delivery's `sentAt`, milliseconds). Prints one JSON line: store, webhooks, the rate they were posted
/// at, pushes, sent, and the latencies' p50, p99 and max in milliseconds.
enum LatencyCommand {
    static let usage = """
        relay-bench latency [--rate N] [--seconds N] [--rooms N] [--room-size N] [--timeout SECONDS]
                            \(BenchRelays.usage)
        """

    /// What the run measured.
    struct Report: Encodable {
        var store: String
        var webhooks: Int
        var webhooks_per_second: Double
        var pushes: Int
        var sent: Int
        var p50_ms: Double
        var p99_ms: Double
        var max_ms: Double
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let rate = try arguments.positiveInteger("rate", default: 20)
        let seconds = try arguments.positiveInteger("seconds", default: 15)
        let rooms = try arguments.positiveInteger("rooms", default: 20)
        let roomSize = try arguments.positiveInteger("room-size", default: 5)
        let timeout = Duration.seconds(try arguments.positiveInteger("timeout", default: 600))
        let relays = try await BenchRelays(arguments) { store in
            try await seed(store, rooms: rooms, roomSize: roomSize)
        }
        defer { relays.stop() }
        _ = try await FanoutCommand.postWebhook(
            port: relays.ports[0],
            apiKey: relays.apiKey,
            room: SeedCommand.warmUpRoom
        )
        try await relays.waitUntilNothingPending(since: .now, timeout: timeout)

        // Each webhook's notification and the wall-clock time just before its POST.
        var posted: [(id: UUID, at: Date)] = []
        let count = rate * seconds
        let started = ContinuousClock.now
        for index in 0..<count {
            try await Task.sleep(until: started + .seconds(Double(index) / Double(rate)), clock: .continuous)
            let at = Date()
            let accepted = try await FanoutCommand.postWebhook(
                port: relays.ports[index % relays.ports.count],
                apiKey: relays.apiKey,
                room: room(index % rooms)
            )
            posted.append((try UUID(uuidString: accepted.notificationId).orThrow("bad notification id"), at))
        }
        let postSeconds = (ContinuousClock.now - started).timeInterval
        try await relays.waitUntilNothingPending(since: started, timeout: timeout)

        var latencies: [Double] = []
        var pushes = 0
        for (id, at) in posted {
            let found = try await relays.observer.notification(
                appId: SeedCommand.appId,
                id: id,
                limit: roomSize,
                offset: 0
            )
            let deliveries = try found.orThrow("notification not found").deliveries
            pushes += deliveries.count
            latencies += deliveries.compactMap { $0.sentAt.map { $0.timeIntervalSince(at) * 1000 } }
        }
        latencies.sort()
        let percentile = { (p: Double) in
            latencies.isEmpty
                ? 0 : latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)]
        }
        let report = Report(
            store: relays.storeName,
            webhooks: count,
            webhooks_per_second: Double(count) / postSeconds,
            pushes: pushes,
            sent: latencies.count,
            p50_ms: percentile(0.5),
            p99_ms: percentile(0.99),
            max_ms: latencies.last ?? 0
        )
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return latencies.count == pushes ? 0 : 1
    }

    static func room(_ index: Int) -> String { "latency-\(index)" }

    /// The warm-up device (``SeedCommand/warmUpRoom``) and `rooms` rooms of `roomSize` iOS devices, each
    /// device its own user.
    static func seed(_ store: any Store, rooms: Int, roomSize: Int) async throws {
        try await SeedCommand.seed(store, devices: 0, platform: .ios)
        let now = Date()
        for index in 1...(rooms * roomSize) {
            _ = try await store.upsertDevice(
                appId: SeedCommand.appId,
                token: try SeedCommand.token(index, platform: .ios),
                userId: "latency-user-\(index)",
                rooms: [room((index - 1) / roomSize)],
                at: now
            )
        }
    }
}
