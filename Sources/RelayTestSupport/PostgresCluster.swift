import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests: `initdb` and `pg_ctl start` in a new temporary folder, the
/// server listening only on a Unix socket there (no TCP port), started once per test process
/// (``shared()``). Each test takes a schema of its own (``newDatabaseURL()``), so tests run in parallel.
///
/// A watchdog process stops the server (`pg_ctl stop -m immediate`) and deletes the folder within about a
/// second of the test process's end, however it ends. Under `make test` the server is also listed in the
/// run's folder (`PUSH_RELAY_TEST_SERVERS`, scripts/test-servers.sh), which stops it when the run ends even
/// if the watchdog was killed with the tests. `initdb` refuses to run as root: as root, the folder
/// belongs to the `postgres` user and the server's programs run as that user (`runuser`).
public final class PostgresCluster: Sendable {
    /// The folder holding the data directory, the server's socket and its log.
    public let folder: String
    /// How long `initdb` and `pg_ctl start` took, in SECONDS.
    public let startSeconds: Double
    private let bin: String
    private let asServerUser: [String]
    /// Runs until this process ends; never read (held so it is never released and killed).
    private let watchdog: ChildProcess

    /// The port named in the socket's file name (`.s.PGSQL.<port>`); nothing listens on TCP.
    static let port = 5432

    private static let started = Task { try await PostgresCluster.start() }

    /// The cluster of this test process, started by the first call.
    /// - Throws: ``SpawnError`` when PostgreSQL's server programs are missing or the server does not start.
    public static func shared() async throws -> PostgresCluster { try await started.value }

    /// A cluster of its own, for a test that stops or breaks its server (a stopped shared server would stall
    /// the tests running beside it); it is stopped and deleted when released (at the end of its test), or
    /// by its watchdog when the test process ends first.
    /// - Throws: ``SpawnError`` as ``shared()``.
    public static func dedicated() async throws -> PostgresCluster { try await start() }

    /// The server's data directory; the first line of its `postmaster.pid` is the postmaster's process id.
    public var dataDirectory: String { "\(folder)/data" }

    private init(folder: String, startSeconds: Double, bin: String, asServerUser: [String], watchdog: ChildProcess) {
        self.folder = folder
        self.startSeconds = startSeconds
        self.bin = bin
        self.asServerUser = asServerUser
        self.watchdog = watchdog
    }

    /// Stops the server and deletes its folder: releasing the cluster also ends its watchdog, which would
    /// otherwise have done this when the test process ends.
    deinit {
        let command = asServerUser + ["\(bin)/pg_ctl", "stop", "-D", dataDirectory, "-m", "immediate", "-s"]
        if let stop = try? ChildProcess(command[0], Array(command.dropFirst())) { _ = stop.waitForExit() }
        try? FileManager.default.removeItem(atPath: folder)
        if let listing = Self.listing(folder) { try? FileManager.default.removeItem(atPath: listing) }
    }

    /// Restarts the server as an operator does (`pg_ctl restart -m fast`): every session is ended (SQLSTATE
    /// 57P01), and the server accepts connections again, with the same options, when this returns.
    /// - Throws: ``SpawnError`` with pg_ctl's output when it fails.
    public func restart() async throws {
        try await Self.run(
            asServerUser + ["\(bin)/pg_ctl", "restart", "-D", dataDirectory, "-m", "fast", "-w", "-s"]
                + ["-l", "\(folder)/server.log"],
            directory: folder
        )
    }

    /// The run folder's stop script of the server in `folder`, when the tests run under scripts/test-servers.sh.
    private static func listing(_ folder: String) -> String? {
        guard let run = ProcessInfo.processInfo.environment["PUSH_RELAY_TEST_SERVERS"], !run.isEmpty else { return nil }
        return "\(run)/postgres-\(URL(fileURLWithPath: folder).lastPathComponent).stop"
    }

    /// A new, empty schema of the cluster's `postgres` database, as a libpq connection URI whose
    /// `search_path` starts with it (a store makes its tables there).
    public func newDatabaseURL() async throws -> String {
        let schema = "t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try await psql("CREATE SCHEMA \(schema)")
        return url(schema: schema)
    }

    /// The connection URI of `schema` (`%3D` is the `=` of `-csearch_path=…`, encoded in the URI).
    public func url(schema: String) -> String {
        let host = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
        return "postgresql://postgres@/postgres?host=\(host)&port=\(Self.port)&options=-csearch_path%3D\(schema)"
    }

    private static func start() async throws -> PostgresCluster {
        let began = Date()
        let bin = try serverPrograms()
        // In /tmp whatever TMPDIR is: the server's socket (`<folder>/.s.PGSQL.<port>`) must fit a Unix socket
        // address (107 bytes), and the server's user must reach the folder (/tmp is open to all).
        let folder = "/tmp/push-relay-pg-\(UUID().uuidString.lowercased().prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var asServerUser: [String] = []
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw ChildProcess.SpawnError(description: "running as root, and there is no postgres user")
            }
            guard chown(folder, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw ChildProcess.SpawnError(description: "chown \(folder): \(String(cString: strerror(errno)))")
            }
            asServerUser = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        let data = "\(folder)/data"
        let stop = "\(asServerUser.joined(separator: " ")) \(bin)/pg_ctl stop -D \(data) -m immediate -s"
        if let listing = listing(folder) {
            try "\(stop)\nrm -rf \(folder)\n".write(toFile: listing, atomically: true, encoding: .utf8)
        }
        let watchdog = try ChildProcess(
            "/bin/sh",
            [
                "-c",
                """
                while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
                \(stop)
                rm -rf \(folder)
                """,
            ]
        )
        try await run(
            asServerUser + ["\(bin)/initdb"]
                + [
                    "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync",
                    "--no-instructions",
                ],
            directory: folder
        )
        // A test server: no durability (fsync, full pages), room for many parallel tests' connections.
        let options =
            [
                "-k \(folder)", "-p \(port)", "-c listen_addresses=''", "-c fsync=off", "-c synchronous_commit=off",
                "-c full_page_writes=off", "-c max_connections=300",
            ] + extraOptions()
        try await run(
            asServerUser + ["\(bin)/pg_ctl"]
                + [
                    "start", "-D", data, "-w", "-s", "-l", "\(folder)/server.log", "-o", options.joined(separator: " "),
                ],
            directory: folder
        )
        return PostgresCluster(
            folder: folder,
            startSeconds: Date().timeIntervalSince(began),
            bin: bin,
            asServerUser: asServerUser,
            watchdog: watchdog
        )
    }

    /// Server options added from `RELAY_TEST_PG_OPTIONS` (e.g. `-c shared_preload_libraries=pg_stat_statements`
    /// for `relay-bench cluster --statements`); none when unset.
    private static func extraOptions() -> [String] {
        let extra = ProcessInfo.processInfo.environment["RELAY_TEST_PG_OPTIONS"] ?? ""
        return extra.isEmpty ? [] : [extra]
    }

    /// Runs `sql` with psql in the cluster's `postgres` database and returns its unaligned output (`|` between
    /// columns, a line a row, no header).
    /// - Throws: ``SpawnError`` with psql's output when it fails.
    public func psql(_ sql: String) async throws -> String {
        let (termination, output) = try await ChildProcess.run(
            "\(bin)/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", folder, "-p", "\(Self.port)", "-U",
                "postgres", "-d", "postgres", "-c", sql,
            ],
            includingErrors: true
        )
        guard termination == .exited(0) else {
            throw ChildProcess.SpawnError(description: "psql ended \(termination): \(output)")
        }
        return output
    }

    /// The newest installed PostgreSQL's server programs (Debian: /usr/lib/postgresql/<version>/bin).
    private static func serverPrograms() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard
            let newest = versions.compactMap(Int.init).sorted().last(where: {
                FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb")
            })
        else {
            throw ChildProcess.SpawnError(description: "no \(root)/<version>/bin/initdb: install postgresql")
        }
        return "\(root)/\(newest)/bin"
    }

    /// Runs a command (program and arguments) to its end.
    /// - Throws: ``SpawnError`` with its output when it fails.
    private static func run(_ command: [String], directory: String? = nil) async throws {
        let program = command[0]
        let (termination, output) = try await ChildProcess.run(
            command[0],
            Array(command.dropFirst()),
            directory: directory,
            includingErrors: true
        )
        guard termination == .exited(0) else {
            throw ChildProcess.SpawnError(description: "\(program) ended \(termination): \(output)")
        }
    }
}
