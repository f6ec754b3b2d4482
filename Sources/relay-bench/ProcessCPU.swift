import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time used by a process, user plus system, in SECONDS: a cost per push that does not depend on how many
/// cores ran it.
enum ProcessCPU {
    /// This process's CPU time so far (`getrusage(RUSAGE_SELF)`, every thread).
    static var selfSeconds: Double {
        var usage = rusage()
        guard getrusage(Int32(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Process `pid`'s CPU time so far: `utime` + `stime` of `/proc/<pid>/stat` (proc(5), fields 14 and 15,
    /// in clock ticks), nil when the process is gone or the file is not Linux's. A line-oriented kernel file,
    /// not a standard data format; the command name in parentheses may hold spaces, so fields are counted
    /// after its closing parenthesis.
    static func seconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After ")": field 3 (state) onwards; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The processes whose parent is `pid` (field 4 of each `/proc/<pid>/stat`): a PostgreSQL server's
    /// backends and background workers under its postmaster.
    static func children(of pid: Int32) -> Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return Set(
            entries.compactMap { entry -> Int32? in
                guard let child = Int32(entry),
                    let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return nil }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
            }
        )
    }

    /// CPU `seconds` spent on `pushes` as seconds per 100,000 pushes.
    static func per100k(_ seconds: Double, pushes: Int) -> Double {
        pushes > 0 ? seconds * 100_000 / Double(pushes) : 0
    }
}
