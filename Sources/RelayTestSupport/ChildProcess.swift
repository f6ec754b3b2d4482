import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program run by `posix_spawn`, for tests that start processes. Foundation's `Process.run()` on Linux
/// (swift-corelibs-foundation in Swift 6.3) now and then crashes the whole test process while it reads
/// `/proc/self/fd` (a 256-byte copy of each `dirent`'s name past the end of readdir's buffer), and a test
/// suite that starts many processes beside many open sockets meets it; this spawns without that read.
///
/// Standard input, output and error are files (`/dev/null` by default), so nothing blocks on a full pipe.
/// `@unchecked Sendable`: `pid` never changes and the exit status is kept under `lock`. A process still
/// running when this is released is killed (SIGKILL) and reaped.
public final class ChildProcess: @unchecked Sendable {
    /// A process that could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// How a process ended.
    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
    }

    public let pid: pid_t
    private let lock = NSLock()

    // glibc's `posix_spawn_file_actions_addclosefrom_np` and `_addchdir_np` (2.34, 2.29) are declared only
    // under _GNU_SOURCE, which Swift's Glibc module does not define: looked up by name instead.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>)
        -> Int32
    private static let addCloseFrom = unsafeBitCast(
        glibc("posix_spawn_file_actions_addclosefrom_np"),
        to: AddCloseFrom.self
    )
    private static let addChdir = unsafeBitCast(glibc("posix_spawn_file_actions_addchdir_np"), to: AddChdir.self)

    /// The address of a glibc function, which this machine's glibc (2.34 or later) must have.
    private static func glibc(_ name: String) -> UnsafeMutableRawPointer {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            preconditionFailure("glibc has no \(name); ChildProcess needs glibc 2.34 or later")
        }
        return address
    }
    private var ended: Termination?

    /// Starts `executable` (a path) with `arguments` in `directory` (default: this process's), with exactly
    /// `environment` (default: this process's).
    /// - Throws: ``SpawnError`` naming the call and `strerror` when the process cannot be started.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: String? = nil,
        standardInput: String = "/dev/null",
        standardOutput: String = "/dev/null",
        standardError: String = "/dev/null"
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_APPEND, 0)
        // The child gets only standard input, output and error, as Foundation's Process gives it: an inherited
        // socket of the test process would keep that connection open in the child.
        guard Self.addCloseFrom(&actions, 3) == 0 else { throw SpawnError(description: "addclosefrom_np failed") }
        if let directory, Self.addChdir(&actions, directory) != 0 {
            throw SpawnError(description: "addchdir_np \(directory) failed")
        }
        let command = [executable]
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // Every signal unblocked and handled by default in the child, as Foundation's Process starts one: the
        // test process's threads block signals, and a mask is inherited, so a child would never see a TERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var catchable = sigset_t()
        sigfillset(&catchable)
        sigdelset(&catchable, SIGKILL)
        sigdelset(&catchable, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &catchable)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
    }

    /// Whether the process has not ended yet (reaps it once it has).
    public var isRunning: Bool { poll(blocking: false) == nil }

    /// How it ended; nil while running.
    public var termination: Termination? { poll(blocking: false) }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Blocks until the process ends (call it off Swift's cooperative pool, or once it has ended).
    public func waitForExit() -> Termination {
        while true { if let ended = poll(blocking: true) { return ended } }
    }

    private func poll(blocking: Bool) -> Termination? {
        lock.lock()
        defer { lock.unlock() }
        if let ended { return ended }
        var status: Int32 = 0
        let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
        guard result == pid else { return nil }
        // The wait status's layout (WIFEXITED and friends are macros Swift does not import).
        let signal = status & 0x7f
        ended = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        return ended
    }

    /// Runs `executable` to its end on a thread of its own (never on the cooperative pool), in `directory`,
    /// with `input` as its standard input; returns how it ended and its standard output (and standard error
    /// with `includingErrors`).
    public static func run(
        _ executable: String,
        _ arguments: [String],
        input: Data = Data(),
        directory: String? = nil,
        includingErrors: Bool = false
    ) async throws -> (termination: Termination, output: String) {
        let files = FileManager.default.temporaryDirectory
            .appendingPathComponent("child-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        let inputFile = files.appendingPathComponent("stdin")
        let outputFile = files.appendingPathComponent("stdout")
        try input.write(to: inputFile)
        try Data().write(to: outputFile)
        let child = try ChildProcess(
            executable,
            arguments,
            directory: directory,
            standardInput: inputFile.path,
            standardOutput: outputFile.path,
            standardError: includingErrors ? outputFile.path : "/dev/null"
        )
        let termination = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: child.waitForExit()) }.start()
        }
        return (termination, (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "")
    }
}
