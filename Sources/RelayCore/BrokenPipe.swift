#if canImport(Glibc)
    import Glibc
#endif

/// SIGPIPE, per thread: a write (or an OpenSSL session ticket) to a connection the peer has closed must
/// fail with EPIPE, not kill the process. Each thread that writes to sockets calls
/// ``blockOnThisThread()`` first; the process-wide disposition is left to the program.
public enum BrokenPipe {
    /// Blocks SIGPIPE on the calling thread only (`pthread_sigmask`); a pending one is discarded when the
    /// thread ends.
    public static func blockOnThisThread() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
