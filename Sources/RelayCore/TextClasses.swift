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
    /// directory, not a regular file (a FIFO would be waited on), or not readable by this user; nil when it
    /// can be read. Symbolic links are followed (a mounted secret is often one).
    public func readProblem(atPath path: String) -> String? {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let type = (try? attributesOfItem(atPath: target))?[.type] as? FileAttributeType
        let why: String? =
            if !fileExists(atPath: target) {
                "no such file"
            } else if isDirectory(atPath: target) {
                "a directory"
            } else if type != .typeRegular {
                "not a regular file"
            } else if !isReadableFile(atPath: target) {
                "not readable by this user"
            } else {
                nil
            }
        return why.map { "cannot read \(path) (\($0))" }
    }
}
