import Foundation

/// A file or folder the relay could not make or write: what it tried, the path and the system's reason in
/// words (`Permission denied`, `Not a directory`, …), for a message an operator can act on.
struct PathFailure: Error, CustomStringConvertible {
    let action: String
    let path: String
    let reason: String

    /// The failure of `action` on `path` for the error number `code` (an `errno`).
    init(_ action: String, _ path: String, code: Int32) {
        self.action = action
        self.path = path
        self.reason = String(cString: strerror(code))
    }

    var description: String { "cannot \(action) \(path): \(reason)" }
}
