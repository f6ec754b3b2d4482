import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The processes of a PostgreSQL server stopped with SIGSTOP: the postmaster (first, so it starts no new
/// child) and its children, found by their parent in /proc/<pid>/stat: a frozen host as its clients see it.
/// Call ``resume()`` in a `defer`, so a failing test never leaves the server stopped.
public final class FrozenServer: Sendable {
    private let processes: [pid_t]

    /// Stops the server whose data directory is `dataDirectory`.
    public init(dataDirectory: String) throws {
        let pidFile = try String(contentsOfFile: "\(dataDirectory)/postmaster.pid", encoding: .utf8)
        guard let postmaster = pid_t(pidFile.split(separator: "\n").first ?? "") else {
            throw ChildProcess.SpawnError(description: "no process id in \(dataDirectory)/postmaster.pid")
        }
        kill(postmaster, SIGSTOP)
        let children = Self.children(of: postmaster)
        for child in children { kill(child, SIGSTOP) }
        processes = [postmaster] + children
    }

    /// Lets the server go on (SIGCONT to every process stopped; once more is harmless).
    public func resume() {
        for process in processes.reversed() { kill(process, SIGCONT) }
    }

    /// The processes whose parent is `parent`: the fourth field of /proc/<pid>/stat, after the command
    /// name in parentheses (which may hold spaces and parentheses itself, hence the last ')').
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent
        }
    }
}
