import Foundation

/// Files that hold a secret (a private key, an API key, a service account): readable by their owner only
/// from the moment they exist, as key files are to be kept.
public enum SecretFile {
    /// Writes `contents` to the file at `path` with permissions 0600: made with them (never briefly readable
    /// by others), or, when `replacing` and it exists, truncated and set to them. A symbolic link at `path` is
    /// refused. Written without Foundation's fsync-and-rename: these files are made again when lost, and a
    /// bench room's 100,000 mock subscriptions must take seconds.
    /// - Throws: an error whose description names the file and the reason (`File exists` when it exists and
    ///   not `replacing`, `Permission denied`, …).
    public static func write(_ contents: Data, to path: String, replacing: Bool) throws {
        let flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (replacing ? O_TRUNC : O_EXCL)
        let descriptor = open(path, flags, mode_t(0o600))
        guard descriptor >= 0 else { throw PathFailure("write", path, code: errno) }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw PathFailure("write", path, code: errno) }
        try contents.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var written = 0
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw PathFailure("write", path, code: count < 0 ? errno : EIO) }
                written += count
            }
        }
    }
}
