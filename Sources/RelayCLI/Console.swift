import Foundation
import RelayCore
import Synchronization

/// Writes a line to standard output at once (unbuffered), so a line per push shows up as it happens even
/// when the output is a pipe; `print` would hold it in a buffer. A line that cannot be written (a full disk,
/// a reader that went away) is lost and remembered: the command then exits 1 (``CommandLineTool``), as a
/// tool whose output was lost does.
public func say(_ line: String) {
    if !FileHandle.standardOutput.writeLine(line) { Console.outputLost.store(true, ordering: .relaxed) }
}

/// What the console writes left behind.
enum Console {
    /// Whether a line of standard output could not be written.
    static let outputLost = Atomic(false)
}
