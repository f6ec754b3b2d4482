import Foundation

/// The process's limit on open files (`RLIMIT_NOFILE`), which bounds how many connections can be open:
/// each takes a descriptor.
public enum OpenFileLimit {
    /// Descriptors kept for everything besides HTTP connections: the store's files, libcurl's connections to
    /// APNs and feedback URLs, an in-process mock APNs, libmicrohttpd's epoll and wake-up descriptors, logs.
    public static let reserve = 256

    /// The soft limit now.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (what an unprivileged process may do) and returns the soft
    /// limit then in force; unchanged when it is already there or the call fails.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return current }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
        }
        return current
    }

    /// Connections that fit under the current soft limit beside ``reserve``.
    public static var connectionCapacity: Int { max(current - reserve, 0) }

    #if os(Linux)
        private static let resource = __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue))
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
