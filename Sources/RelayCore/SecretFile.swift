import Foundation

/// Files that hold a secret (a private key, an API key, a service account): readable by their owner only
/// from the moment they exist, as key files are to be kept.
public enum SecretFile {
    /// Writes `contents` to the file at `path`, readable and writable by its owner only. The file is written
    /// whole beside `path` (made with mode 0600, never an existing file) and then renamed over it, or linked
    /// there when not `replacing`: no one who opened or linked an older file at `path` reads the secret, and
    /// a write that fails leaves `path` as it was. Without fsync: these files are made again when lost, and
    /// a bench room's 100,000 mock subscriptions must take seconds.
    /// - Throws: an error whose description names the file and the reason: `File exists` when something is
    ///   at `path` and not `replacing`, `Too many levels of symbolic links` for a symbolic link there (never
    ///   followed nor replaced), `Is a directory`, `Permission denied`, ….
    public static func write(_ contents: Data, to path: String, replacing: Bool) throws {
        var status = stat()
        if lstat(path, &status) == 0 {
            let kind = status.st_mode & S_IFMT
            guard replacing, kind == S_IFREG else {
                throw PathFailure("write", path, code: !replacing ? EEXIST : kind == S_IFLNK ? ELOOP : EISDIR)
            }
        }
        let beside = path + ".new-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let descriptor = open(beside, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else { throw PathFailure("write", path, code: errno) }
        var code = writeAll(contents, to: descriptor)
        if close(descriptor) != 0, code == 0 { code = errno }
        if code == 0 {
            // link refuses a `path` made since the check; rename replaces it at once.
            code = (replacing ? rename(beside, path) : link(beside, path)) == 0 ? 0 : errno
        }
        if code != 0 || !replacing { unlink(beside) }
        guard code == 0 else { throw PathFailure("write", path, code: code) }
    }

    /// Writes all of `contents` to `descriptor`; returns 0, or the error number of the write that failed.
    private static func writeAll(_ contents: Data, to descriptor: Int32) -> Int32 {
        contents.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int32 in
            var written = 0
            while written < bytes.count, let base = bytes.baseAddress {
                let count = Glibc.write(descriptor, base + written, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return count < 0 ? errno : EIO }
                written += count
            }
            return 0
        }
    }
}
