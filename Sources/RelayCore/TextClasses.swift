import Foundation

extension StringProtocol {
    /// Whether every byte is visible ASCII (RFC 5234 VCHAR, %x21-7E): no space, control character or
    /// non-ASCII, as a header value that names something (a topic, a token, a subject) must be. True when
    /// empty; callers bound the length.
    public var isVisibleASCII: Bool { utf8.allSatisfy { (0x21...0x7E).contains($0) } }

    /// Whether every character is an ASCII letter, digit, `.`, `_` or `-`: the ids that name things in
    /// metrics and logs (apps, instances) and Kafka's topic names. True when empty; callers bound the length.
    public var isIdentifierText: Bool {
        allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }

    /// Whether it holds NUL (U+0000): it shows nothing, and a store may not keep it (PostgreSQL's text and
    /// jsonb refuse it).
    public var holdsNUL: Bool { utf8.contains(0) }
}

extension FileManager {
    /// Whether `path` names an existing directory (following symbolic links).
    public func isDirectory(atPath path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Why a file a configuration names cannot be read, as `cannot read PATH (why)`: no such file, a
    /// directory, not a regular file (a FIFO would be waited on), or not readable by this user (also when a
    /// folder on its path may not be entered, as a mounted secret's often may not); nil when it can be read.
    /// Symbolic links are followed (a mounted secret is often one). An empty path names no file.
    public func readProblem(atPath path: String) -> String? {
        guard !path.isEmpty else { return "names no file (it is empty)" }
        var status = stat()
        let why: String? =
            if stat(path, &status) != 0 {
                errno == EACCES ? "not readable by this user" : "no such file"
            } else if status.st_mode & S_IFMT == S_IFDIR {
                "a directory"
            } else if status.st_mode & S_IFMT != S_IFREG {
                "not a regular file"
            } else if access(path, R_OK) != 0 {
                "not readable by this user"
            } else {
                nil
            }
        return why.map { "cannot read \(path) (\($0))" }
    }
}
