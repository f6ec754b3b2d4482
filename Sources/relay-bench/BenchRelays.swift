import Foundation
import RelayCLI
import RelayCore
import RelayCrypto
import RelayPostgres
import RelaySQLite
import RelayStore
import RelayTestSupport

/// The `push-relay serve` processes of `relay-bench cluster` and `relay-bench latency`: `--instances` relays
/// (`--relay`, default `.build/release/push-relay`), each on a port of its own, on ONE throwaway PostgreSQL
/// cluster (``RelayTestSupport/PostgresCluster``: `initdb` and `pg_ctl` in a temporary folder, a Unix
/// socket only) or, with `--store sqlite`, one relay on a SQLite file; their app sends to the mock APNs at
/// `--url` (options as `relay-bench fanout`). Each relay logs to a file, at `--log-level` (default info).
final class BenchRelays {
    let configuration: Configuration
    /// The key the app's webhooks are posted with.
    let apiKey: String
    /// `postgres` or `sqlite`.
    let storeName: String
    /// A connection of this command's own to the relays' store, for seeding and polling.
    let observer: any Store
    let processes: [ChildProcess]
    /// Each relay's HTTP port.
    let ports: [Int]
    /// The PostgreSQL server's processes (the postmaster and its children) but the observer's backend,
    /// whose polls are the bench's own work; none on SQLite.
    private let serverProcesses: () -> [Int32]
    /// The PostgreSQL cluster the relays use; nil on SQLite.
    let cluster: PostgresCluster?
    /// The configuration file, the relays' output and, on SQLite, the database.
    private let folder: String

    static let usage = """
        [--instances N] [--store postgres|sqlite] [--relay PATH] --url https://127.0.0.1:PORT [--ca FILE]
        [--key FILE.p8] [--key-id KID] [--team TEAM] [--batch-size N] [--concurrency N] [--apns-connections N]
        [--poll-ms N]
        """

    /// How many registrations the seed has in flight on PostgreSQL, each on a connection of its own.
    static let seedConnections = 4

    /// Opens the store, lets `seed` fill it (on PostgreSQL through a pool of ``seedConnections``
    /// connections, closed before the relays start, then vacuumed and analyzed; on SQLite through the
    /// observer), then starts the relays and waits until each listens. `--poll-ms` sets
    /// `delivery.pollIntervalMilliseconds` (default 100): how soon the instances that did not take a webhook
    /// see its deliveries.
    init(_ arguments: Arguments, seed: (any Store) async throws -> Void) async throws {
        let count = try arguments.positiveInteger("instances", default: 1)
        let relayPath = URL(fileURLWithPath: arguments.value("relay", default: ".build/release/push-relay")).path
        apiKey = try APIKey.generate()
        var configuration = try FanoutCommand.configuration(arguments, apiKey: apiKey)
        configuration.http.host = "127.0.0.1"
        configuration.delivery.pollIntervalMilliseconds = try arguments.positiveInteger("poll-ms", default: 100)
        folder =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-bench-relays-\(UUID().uuidString.lowercased().prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        let logger = Logger(label: "relay-bench", level: .warning)
        storeName = arguments.value("store", default: "postgres")
        switch storeName {
        case "postgres":
            let cluster = try await PostgresCluster.shared()
            self.cluster = cluster
            let url = try await cluster.newDatabaseURL()
            let postmaster = try Self.postmasterPid(cluster)
            let before = ProcessCPU.children(of: postmaster)
            observer = try PostgresStore(url: url, logger: logger)
            let observerBackends = ProcessCPU.children(of: postmaster).subtracting(before)
            serverProcesses = { [postmaster] + ProcessCPU.children(of: postmaster).subtracting(observerBackends) }
            configuration.storage.postgres.url = url
        case "sqlite":
            guard count == 1 else { throw FanoutCommand.Failure(description: "--store sqlite runs one instance") }
            configuration.storage.sqlitePath = "\(folder)/relay.sqlite"
            observer = try SQLiteStore(path: configuration.storage.sqlitePath, logger: logger)
            serverProcesses = { [] }
            cluster = nil
        default:
            throw FanoutCommand.Failure(description: "--store is postgres or sqlite, not '\(storeName)'")
        }
        self.configuration = configuration
        if let url = configuration.storage.postgres.url, let cluster {
            try await seed(PostgresStore.pool(url: url, size: Self.seedConnections, logger: logger))
            // As autovacuum would have long done on a server that had the seed's rows before the webhook: hint
            // bits set, the statistics taken, so neither falls on the fan-out's own statements nor runs beside
            // them. ANALYZE with it: with the tables' sizes known and no column statistics, the planner nests
            // sequential scans for the unread totals update.
            _ = try await cluster.psql("VACUUM (ANALYZE)")
        } else {
            try await seed(observer)
        }

        let configFile = "\(folder)/config.json"
        try JSONEncoder().encode(configuration).write(to: URL(fileURLWithPath: configFile))
        var processes: [ChildProcess] = []
        var ports: [Int] = []
        do {
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
                processes.append(process)
                ports.append(try await Self.listeningPort(output, errorOutput: errors, process, timeout: .seconds(60)))
            }
        } catch {
            Self.stop(processes)
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        self.processes = processes
        self.ports = ports
    }

    /// Stops every relay (SIGTERM, then waits for each) and deletes the folder.
    func stop() {
        Self.stop(processes)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Each relay's CPU seconds so far.
    func relayCPU() -> [Double] { processes.map { ProcessCPU.seconds(pid: $0.pid) ?? 0 } }

    /// The PostgreSQL server's processes now, for ``serverCPU(since:)``.
    func serverSnapshot() -> [Int32: Double] {
        Dictionary(serverProcesses().map { ($0, ProcessCPU.seconds(pid: $0) ?? 0) }) { first, _ in first }
    }

    /// CPU seconds the processes of `snapshot` spent since it was taken.
    func serverCPU(since snapshot: [Int32: Double]) -> Double {
        snapshot.reduce(0) { sum, entry in sum + (ProcessCPU.seconds(pid: entry.key) ?? entry.value) - entry.value }
    }

    /// Waits until the store has no pending delivery, or throws after `timeout`. The store is read again
    /// after 1 % of the time since `started`, from 10 to 100 ms: the end is known within 1 % once a run is
    /// past its first second, and a run's reads, each the PostgreSQL server's work (and the planning of a
    /// statement) on the cores the relays share, are ten a second past its first 10 s instead of a hundred.
    func waitUntilNothingPending(since started: ContinuousClock.Instant, timeout: Duration) async throws {
        while try await observer.hasPendingDeliveries() {
            let elapsed = ContinuousClock.now - started
            guard elapsed < timeout else {
                throw FanoutCommand.Failure(description: "deliveries still pending after \(timeout)")
            }
            try await Task.sleep(for: min(max(elapsed / 100, .milliseconds(10)), .milliseconds(100)))
        }
    }

    /// The process id on the first line of the cluster's `postmaster.pid`.
    private static func postmasterPid(_ cluster: PostgresCluster) throws -> Int32 {
        let text = try String(contentsOfFile: cluster.dataDirectory + "/postmaster.pid", encoding: .utf8)
        return try text.split(separator: "\n").first.flatMap { Int32($0) }.orThrow("no pid in postmaster.pid")
    }

    /// The port in the `PushRelay listening on http://HOST:PORT` line `serve` prints to `output`; the end of
    /// `errorOutput` is in the error when `serve` ends first.
    private static func listeningPort(
        _ output: String,
        errorOutput: String,
        _ process: ChildProcess,
        timeout: Duration
    ) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        let prefix = "PushRelay listening on "
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
                let port = URLComponents(string: String(line.dropFirst(prefix.count)))?.port
            {
                return port
            }
            guard process.isRunning else {
                let errors = (try? String(contentsOfFile: errorOutput, encoding: .utf8)) ?? ""
                throw FanoutCommand.Failure(description: "push-relay serve ended: \(text)\(errors.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FanoutCommand.Failure(description: "push-relay serve did not listen within \(timeout)")
    }

    /// SIGTERM to every relay, then waits for each to end.
    private static func stop(_ processes: [ChildProcess]) {
        for process in processes { process.signal(SIGTERM) }
        for process in processes { _ = process.waitForExit() }
    }
}
