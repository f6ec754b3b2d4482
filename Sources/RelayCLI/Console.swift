import Foundation

/// Writes a line to standard output at once (unbuffered), so a line per push shows up as it happens even
/// when the output is a pipe; `print` would hold it in a buffer.
public func say(_ line: String) {
    FileHandle.standardOutput.writeLine(line)
}
