import COpenSSL

/// OpenSSL's process-wide state.
public enum OpenSSLProcess {
    /// Initializes OpenSSL without its exit handler, so that its shared state lives as long as the process.
    /// By default OpenSSL frees that state in an `atexit` handler, which assumes every other thread has
    /// stopped: a thread that ends as the process exits (a libcurl driver after its client's shutdown) then
    /// runs OpenSSL's thread cleanup against freed state, and corrupts the heap. Runs before anything else
    /// initializes OpenSSL (libcurl included), since the first initialization decides; the process's end
    /// returns the memory.
    public static func keepThroughExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
