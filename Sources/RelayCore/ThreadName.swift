#if canImport(Glibc)
    import Glibc
#endif

/// The name of a thread we start, as `top -H`, `ps -L`, perf and debuggers show it.
public enum ThreadName {
    /// Names the calling thread by writing `/proc/thread-self/comm` (proc(5); Linux keeps at most 15 bytes,
    /// so a longer name is cut). Foundation's `Thread.current.name` setter reaches the OS thread only once the
    /// `Thread` object knows its pthread, which a thread that has just started may not yet: it then kept its
    /// creator's name (a pool thread's "…default-qos"), seen in about one bench run in three. Glibc's
    /// `pthread_setname_np` is not visible to Swift. Does nothing where the file cannot be written.
    public static func setForThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
