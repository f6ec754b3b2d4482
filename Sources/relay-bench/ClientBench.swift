import Foundation
import RelayAllocator
import RelayCLI
import RelayCurl
import Synchronization

/// The client-only measurement `relay-bench apns` and `relay-bench fcm` share: `--count` sends with
/// `--in-flight` concurrent tasks, timed from the first send to the last answer, each task taking the next
/// send's index until all are issued. Its report is one JSON line: requests, ok, seconds, per_second, peak
/// RSS and RSS after 10 %, 50 % and 100 % of the sends (KiB), so a reader sees whether memory stays flat.
struct ClientBench {
    /// Sends to make.
    var count: Int
    /// Concurrent sending tasks.
    var inFlight: Int
    /// The client's own in-flight limit (`--max-in-flight`, default the larger of `inFlight` and 100).
    var maxInFlight: Int
    /// Whether each send goes to another device token (`--distinct-tokens`, 10,000 seeded tokens in turn),
    /// as a fan-out sends: a new `:path` or body token every time, which HPACK cannot index.
    var distinctTokens: Bool
    /// `--requests-out FILE`: instead of sending, write the requests the client would send (one per distinct
    /// token) to FILE for the bare libcurl reference (``writeRequests(_:)``).
    var requestsOut: String?

    /// How many distinct tokens `--distinct-tokens` cycles through.
    static let distinctTokenCount = 10_000

    /// The options' usage, after the client's own.
    static let usage = "[--count N] [--in-flight M] [--max-in-flight K] [--distinct-tokens] [--requests-out FILE]"

    init(_ arguments: Arguments) throws {
        count = try arguments.positiveInteger("count", default: 200_000)
        inFlight = try arguments.positiveInteger("in-flight", default: 100)
        maxInFlight = try arguments.positiveInteger("max-in-flight", default: max(inFlight, 100))
        distinctTokens = arguments.flag("distinct-tokens")
        requestsOut = arguments.value("requests-out")
    }

    /// Writes `request(i)` for each distinct index to ``requestsOut``, one request a line: the URL, the
    /// number of header lines, each header line and the body, separated by tabs (none of them holds a tab or
    /// a line break: header values are checked for them and bodies are JSON). `scripts/bench/curl-multi.c`
    /// sends them as they are, so the reference sends exactly the relay's requests.
    func writeRequests(to path: String, _ request: (Int) async throws -> CurlRequest) async throws -> Int32 {
        var text = ""
        for index in 0..<(distinctTokens ? Self.distinctTokenCount : 1) {
            let made = try await request(index)
            let fields =
                [made.url, String(made.allHeaders.count)] + made.allHeaders + [
                    String(decoding: made.body, as: UTF8.self)
                ]
            text += fields.joined(separator: "\t") + "\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return 0
    }

    /// The tokens sent to: `make(i)` for each distinct index, or `single` alone.
    func tokens<Token>(single: Token, _ make: (Int) throws -> Token) rethrows -> [Token] {
        distinctTokens ? try (0..<Self.distinctTokenCount).map(make) : [single]
    }

    /// What the run measured.
    struct Report: Encodable {
        var requests: Int
        var ok: Int
        var seconds: Double
        var per_second: Double
        /// User + system CPU seconds of this process during the sends, per 100,000 sends.
        var cpu_seconds_per_100k: Double
        var rss_start_kib: Int
        var rss_10_kib: Int
        var rss_50_kib: Int
        var rss_100_kib: Int
        var peak_rss_kib: Int
        /// ``Allocator/summary``: the allocator the client's process ran on.
        var allocator: String

        /// Prints the JSON line; 0 when every send was accepted, else 1.
        func print() throws -> Int32 {
            Swift.print(String(decoding: try JSONEncoder().encode(self), as: UTF8.self))
            return ok == requests ? 0 : 1
        }
    }

    /// Runs the sends: `send(i)` for every index `i` in `0..<count`, `true` when the service accepted it.
    func measure(_ send: @escaping @Sendable (Int) async -> Bool) async -> Report {
        let count = count
        let progress = Progress()
        let marks = [max(1, count / 10), max(1, count / 2), count]
        let rssStart = ProcessMemory.residentKiB
        let started = ContinuousClock.now
        let cpuStart = ProcessCPU.selfSeconds
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(inFlight, count) {
                group.addTask {
                    while case let issued = progress.issued.wrappingAdd(1, ordering: .relaxed).oldValue,
                        issued < count
                    {
                        if await send(issued) { progress.accepted.wrappingAdd(1, ordering: .relaxed) }
                        let done = progress.finished.wrappingAdd(1, ordering: .relaxed).newValue
                        if marks.contains(done) {
                            let rss = ProcessMemory.residentKiB
                            progress.samples.withLock { $0[done] = rss }
                        }
                    }
                }
            }
        }
        let seconds = (ContinuousClock.now - started).timeInterval
        let cpu = ProcessCPU.selfSeconds - cpuStart
        let taken = progress.samples.withLock { $0 }
        return Report(
            requests: count,
            ok: progress.accepted.load(ordering: .relaxed),
            seconds: seconds,
            per_second: Double(count) / seconds,
            cpu_seconds_per_100k: ProcessCPU.per100k(cpu, pushes: count),
            rss_start_kib: rssStart,
            rss_10_kib: taken[marks[0]] ?? 0,
            rss_50_kib: taken[marks[1]] ?? 0,
            rss_100_kib: taken[marks[2]] ?? 0,
            peak_rss_kib: ProcessMemory.peakResidentKiB,
            allocator: Allocator.summary
        )
    }

    /// Counters the sending tasks share.
    private final class Progress: Sendable {
        /// Sends started.
        let issued = Atomic<Int>(0)
        /// Sends answered or failed.
        let finished = Atomic<Int>(0)
        /// Sends accepted.
        let accepted = Atomic<Int>(0)
        /// VmRSS (KiB) by number of sends finished.
        let samples = Mutex<[Int: Int]>([:])
    }
}
