import Foundation

/// This process's memory as Linux reports it in `/proc/self/status`, in KIBIBYTES (the file's unit).
enum ProcessMemory {
    /// Resident set size now (`VmRSS`), KiB; 0 when unreadable (not Linux).
    static var residentKiB: Int { field("VmRSS") }

    /// Peak resident set size since start (`VmHWM`, the high-water mark), KiB; 0 when unreadable.
    static var peakResidentKiB: Int { field("VmHWM") }

    /// `VmRSS:     12345 kB` -> 12345. A line-oriented kernel file, not a standard data format.
    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits) ?? 0
        }
        return 0
    }
}

extension Int {
    /// KiB as MiB with one decimal, e.g. `41.3`.
    var mebibytes: String { String(format: "%.1f", Double(self) / 1024) }
}
