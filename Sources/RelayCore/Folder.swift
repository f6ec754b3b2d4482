import Foundation

/// Folders the relay makes for its files (the data folder, a SQLite file's folder).
public enum Folder {
    /// Makes the folder at `path` with its missing parents (nothing when it exists), each made with
    /// `permissions` (less the process's umask; 0o777 when nil).
    /// - Throws: an error whose description names the folder and the reason (`Permission denied`, `Not a
    ///   directory`, …).
    public static func make(_ path: String, permissions: Int? = nil) throws {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var folder = path.hasPrefix("/") ? "/" : ""
        for (index, component) in components.enumerated() {
            folder += (index == 0 ? "" : "/") + component
            if mkdir(folder, mode_t(permissions ?? 0o777)) == 0 { continue }
            let code = errno
            var status = stat()
            if code == EEXIST, stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { continue }
            let reason = code == EEXIST ? ENOTDIR : code
            throw PathFailure("create folder", path, code: reason)
        }
    }
}
