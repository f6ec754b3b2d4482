import Foundation
import RelayAPNs
import RelayCLI
import RelayCore
import RelayStore
import Synchronization

/// `relay-bench apns`: `--count` sends through ``APNsClient`` with `--in-flight` concurrent tasks, timed from
/// the first send to the last answer. All to one device token (as h2load and the C loop send), or with
/// `--distinct-tokens` each to another one (10,000 seeded tokens in turn), as a fan-out sends: a new
/// `:path` every time, which HPACK cannot index. Prints one JSON line: requests, ok, seconds, per_second, peak RSS and
/// RSS after 10 %, 50 % and 100 % of the sends (KiB), so a reader sees whether memory stays flat.
enum APNsBenchCommand {
    static let usage = """
        relay-bench apns --url https://127.0.0.1:PORT [--ca FILE] [--count N] [--in-flight M]
                         [--key FILE.p8] [--key-id KID] [--team TEAM] [--max-in-flight K] [--distinct-tokens]
        """

    /// What the run measured.
    struct Report: Encodable {
        var requests: Int
        var ok: Int
        var seconds: Double
        var per_second: Double
        var rss_start_kib: Int
        var rss_10_kib: Int
        var rss_50_kib: Int
        var rss_100_kib: Int
        var peak_rss_kib: Int
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let url = try arguments.required("url")
        let count = try arguments.positiveInteger("count", default: 200_000)
        let inFlight = try arguments.positiveInteger("in-flight", default: 100)
        var configuration = APNsClientConfiguration(
            endpoint: .custom(baseURL: url, caFile: arguments.value("ca", default: BenchDefaults.caFile)),
            authentication: .token(
                key: arguments.value("key", default: BenchDefaults.keyFile),
                keyId: arguments.value("key-id", default: BenchDefaults.keyId),
                teamId: arguments.value("team", default: BenchDefaults.teamId)
            )
        )
        configuration.maxInFlight = try arguments.positiveInteger("max-in-flight", default: max(inFlight, 100))
        let client = try APNsClient(configuration: configuration)
        let token = try DeviceToken(parsing: BenchDefaults.deviceToken)
        let tokens = arguments.flag("distinct-tokens") ? try (0..<10_000).map(SeedCommand.token) : [token]
        let payload = Data(BenchDefaults.body.utf8)
        let collapseId = UUID().lowercasedString
        let notificationId = UUID()

        // Warm-up: connects, proves the provider token (APNs allows one stream until then).
        _ = try await client.send(APNsNotification(deviceToken: token, topic: BenchDefaults.topic, payload: payload))

        let progress = Progress()
        let marks = [max(1, count / 10), max(1, count / 2), count]
        let rssStart = ProcessMemory.residentKiB
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(inFlight, count) {
                group.addTask {
                    while case let issued = progress.issued.wrappingAdd(1, ordering: .relaxed).oldValue,
                        issued < count
                    {
                        // The headers the relay sends for a chat message: its own apns-id, derived as the
                        // relay derives it (no random UUID, which reads /dev/urandom each time on Linux), an
                        // expiration and the message id as collapse id, so the fan-out is compared with the same
                        // work.
                        let notification = APNsNotification(
                            deviceToken: tokens[issued % tokens.count],
                            topic: BenchDefaults.topic,
                            expiration: Int(Date().timeIntervalSince1970) + 86_400,
                            collapseId: collapseId,
                            apnsId: APNsIdentifier.forDelivery(Int64(issued), of: notificationId),
                            payload: payload
                        )
                        if let response = try? await client.send(notification), response.status == 200 {
                            progress.accepted.wrappingAdd(1, ordering: .relaxed)
                        }
                        let done = progress.finished.wrappingAdd(1, ordering: .relaxed).newValue
                        if marks.contains(done) {
                            let rss = ProcessMemory.residentKiB
                            progress.samples.withLock { $0[done] = rss }
                        }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        await client.shutdown()
        let seconds = elapsed.timeInterval
        let taken = progress.samples.withLock { $0 }
        let report = Report(
            requests: count,
            ok: progress.accepted.load(ordering: .relaxed),
            seconds: seconds,
            per_second: Double(count) / seconds,
            rss_start_kib: rssStart,
            rss_10_kib: taken[marks[0]] ?? 0,
            rss_50_kib: taken[marks[1]] ?? 0,
            rss_100_kib: taken[marks[2]] ?? 0,
            peak_rss_kib: ProcessMemory.peakResidentKiB
        )
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        return report.ok == count ? 0 : 1
    }

    /// Counters the sending tasks share.
    private final class Progress: Sendable {
        /// Sends started.
        let issued = Atomic<Int>(0)
        /// Sends answered or failed.
        let finished = Atomic<Int>(0)
        /// Sends answered 200.
        let accepted = Atomic<Int>(0)
        /// VmRSS (KiB) by number of sends finished.
        let samples = Mutex<[Int: Int]>([:])
    }
}
