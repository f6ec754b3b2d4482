import Foundation

/// An exclusive `flock(2)` on a file, held as long as this lives: the proof that one instance id of a
/// SQLite store is in use by a live relay. The kernel drops the lock when the process ends, killed or not,
/// so a restart takes it at once; a second open of the file, in this process or another, fails to get it.
final class InstanceLock {
    private let descriptor: Int32

    /// Takes the lock on `path`, creating the file.
    /// - Throws: ``StoreError`` `.instanceInUse` when another open file holds it, `.open` when the file
    ///   cannot be opened.
    init(path: String, instanceId: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(code: .open, message: "open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw StoreError(
                code: .instanceInUse,
                message: "instance id '\(instanceId)' is in use by another live relay on this database (\(path) is "
                    + "locked); give each relay its own delivery.instanceId"
            )
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
