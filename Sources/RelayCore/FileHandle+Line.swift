import Foundation

extension FileHandle {
    /// Writes `line` and a newline in one write. An error (a reader that went away, EPIPE, SIGPIPE being
    /// ignored or blocked; a full disk) loses the line, never the process: Foundation's `write(_:)` traps on
    /// any error, so `push-relay serve | head` would end the relay at its next log line.
    /// - Returns: whether the line was written.
    @discardableResult
    public func writeLine(_ line: String) -> Bool {
        write(dropping: Data((line + "\n").utf8))
    }

    /// Writes `data` as it is, dropping it on an error, as ``writeLine(_:)``.
    /// - Returns: whether it was written.
    @discardableResult
    public func write(dropping data: Data) -> Bool {
        (try? write(contentsOf: data)) != nil
    }
}
