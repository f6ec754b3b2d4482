import CJemalloc

/// The allocator behind `malloc` in the relay's executables: jemalloc, linked into `push-relay` and
/// `relay-bench` so that it serves every allocation of the process (Swift's, libcurl's, SQLite's, OpenSSL's)
/// in place of the C library's. In a fan-out's profile allocation costs it about half of what it costs
/// glibc's (docs/bench.md, "jemalloc in place of the C library's malloc"). Test processes do not link it;
/// the `push-relay serve` processes they start do.
public enum Allocator {
    /// jemalloc's version, nil when its control interface does not answer.
    public static var version: String? { cjemalloc_version().map { String(cString: $0) } }

    /// Whether this process's `malloc` is jemalloc's: false when the dynamic linker found another one first
    /// (one preloaded with `LD_PRELOAD`). Asked once: the process's allocator does not change.
    public static let servesMalloc = cjemalloc_serves_malloc() != 0

    /// Whether the process is split between two allocators: another `malloc` serves `malloc` and `free`
    /// while jemalloc serves C++ `new` and `delete` (which the Swift runtime uses), as when the C library
    /// itself is preloaded. Memory one of them hands out is then freed by the other, and the process aborts
    /// (at its first request, for `serve`). An allocator that replaces both (tcmalloc) splits nothing.
    public static let isSplit = !servesMalloc && cjemalloc_serves_operator_new() != 0

    /// One line for `push-relay version` and the benchmarks' results: `jemalloc <version>`, and what stands
    /// in the way when it does not serve `malloc`.
    public static var summary: String {
        guard let version else { return "jemalloc: its control interface did not answer" }
        return servesMalloc ? "jemalloc \(version)" : "jemalloc \(version), NOT serving malloc"
    }

    /// What `push-relay version` warns of and `serve` logs (refusing to start when ``isSplit``); nil when
    /// jemalloc serves `malloc`.
    public static var warning: String? {
        if servesMalloc { return nil }
        if isSplit {
            return "another malloc (preloaded) serves malloc and free while jemalloc serves C++ new and delete: "
                + "memory taken from one would be freed by the other, so push-relay serve refuses to start"
        }
        return "another malloc (preloaded) serves allocations in place of the linked jemalloc"
    }
}
