import Foundation
import RelayStore

/// An exclusive `flock(2)` on a lock file beside a SQLite store, held as long as this lives: the proof that
/// a live relay serves from that store. SQLite serves one relay at a time whatever instance ids relays are
/// given (several relays share PostgreSQL instead). The kernel drops the lock when the process ends, killed
/// or not, so a restart takes it at once; a second open of the file, in this process or another, fails to
/// get it. The holder writes its instance id into the file, so a refusal names it.
final class InstanceLock {
    private let descriptor: Int32

    /// Takes the lock on `path` (creating the file) for the relay `instanceId` serving from `database`.
    /// - Throws: ``StoreError`` `.instanceInUse` when another open file holds it, `.open` when the file
    ///   cannot be opened, not even for reading (it is not there and cannot be made), or when `database` has
    ///   more than one name (``refuseHardLinks(_:)``).
    init(path: String, database: String, instanceId: String) throws {
        // 0600: anyone who can open the file can flock it, and so keep the relay from starting.
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        // A lock file this user cannot write (another user's, on a read-only mount) is locked all the same:
        // flock(2) needs no write access. Only the instance id is then not written.
        if descriptor < 0, errno == EACCES || errno == EROFS { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw StoreError(code: .open, message: "open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(descriptor)
            close(descriptor)
            throw StoreError(
                code: .instanceInUse,
                message: "\(database) is in use by another live relay"
                    + (holder.map { " (instance id '\($0)')" } ?? "") + " (\(path) is locked): a SQLite store serves "
                    + "one relay; stop that one, or give several relays one PostgreSQL store (storage.postgres.url), "
                    + "each with its own delivery.instanceId"
            )
        }
        do { try Self.refuseHardLinks(database) } catch {
            close(descriptor)
            throw error
        }
        if ftruncate(descriptor, 0) == 0 {
            _ = Array(instanceId.utf8).withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The lock file of the store at `database`: `<file>.lock`, named after the file's real path, so a
    /// symbolic link or another spelling of the path meets the same lock.
    static func path(of database: String) -> String {
        let file = realpath(database, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return "\(file ?? database).lock"
    }

    /// Refuses a store file with more than one name (hard links): the lock is named after the file's path,
    /// and SQLite keeps its write-ahead log and shared memory by name too, so a relay on another name would
    /// take another lock and write the same file as a second store.
    private static func refuseHardLinks(_ database: String) throws {
        var status = stat()
        guard stat(database, &status) == 0, status.st_nlink > 1 else { return }
        throw StoreError(
            code: .open,
            message: "\(database) has \(status.st_nlink) names (hard links): a relay on another name would write "
                + "the same file as a second store; keep one name (a symbolic link is fine)"
        )
    }

    /// The instance id the holder wrote (at most 64 bytes, as ids are), nil when it wrote none.
    private static func holder(_ descriptor: Int32) -> String? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}
