import Foundation
import RelayOutbox

#if canImport(Glibc)
    import Glibc
#endif

/// The process's own figures under the names every Prometheus client library's process collector gives
/// them (CPU time, memory, file descriptors, start time), read from Linux's `/proc/self` at each scrape.
enum ProcessMetrics {
    /// The samples; a figure that cannot be read is left out.
    static func samples() -> [ScrapedSample] {
        var samples: [ScrapedSample] = []
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let stat = processStat(), ticks > 0 {
            samples.append(
                ScrapedSample(
                    "process_cpu_seconds_total",
                    .counter,
                    help: "Total user and system CPU time spent in seconds.",
                    value: (stat.userTicks + stat.systemTicks) / ticks
                )
            )
            samples.append(
                ScrapedSample(
                    "process_resident_memory_bytes",
                    .gauge,
                    help: "Resident memory size in bytes.",
                    value: stat.residentPages * Double(sysconf(Int32(_SC_PAGESIZE)))
                )
            )
            samples.append(
                ScrapedSample(
                    "process_virtual_memory_bytes",
                    .gauge,
                    help: "Virtual memory size in bytes.",
                    value: stat.virtualBytes
                )
            )
            if let started = startTime {
                samples.append(
                    ScrapedSample(
                        "process_start_time_seconds",
                        .gauge,
                        help: "Start time of the process since unix epoch in seconds.",
                        value: started
                    )
                )
            }
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            samples.append(
                ScrapedSample(
                    "process_open_fds",
                    .gauge,
                    help: "Number of open file descriptors.",
                    value: Double(open.count)
                )
            )
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            samples.append(
                ScrapedSample(
                    "process_max_fds",
                    .gauge,
                    help: "Maximum number of open file descriptors.",
                    value: Double(limit.rlim_cur)
                )
            )
        }
        return samples
    }

    /// The fields of `/proc/self/stat` used here (proc(5)), counted after the command name's closing
    /// parenthesis, since the name may hold spaces and parentheses: utime and stime (14 and 15), starttime (22),
    /// vsize (23) and rss (24).
    private static func processStat() -> (
        userTicks: Double, systemTicks: Double, startTicks: Double, virtualBytes: Double, residentPages: Double
    )? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the name: field 3 (state) is the first.
        let fields = text[text.index(after: close)...].split(separator: " ")
        func field(_ number: Int) -> Double? { fields.indices.contains(number - 3) ? Double(fields[number - 3]) : nil }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23),
            let resident = field(24)
        else { return nil }
        return (user, system, start, virtual, resident)
    }

    /// When the process started, in seconds since the epoch: the machine's boot (`btime` of `/proc/stat`)
    /// plus the process's start in clock ticks after it. Read once: neither changes.
    private static let startTime: Double? = {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let stat = processStat(), ticks > 0,
            let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(line.dropFirst("btime ".count))
        else { return nil }
        return boot + stat.startTicks / ticks
    }()
}
