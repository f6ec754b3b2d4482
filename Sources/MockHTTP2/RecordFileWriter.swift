import Foundation
import Synchronization

/// Appends recorded requests to a file as JSON lines, one `fwrite` and `fflush` each under a lock.
package final class RecordFileWriter: Sendable {
    private struct File {
        var handle: UnsafeMutablePointer<FILE>
        let encoder: JSONEncoder
    }

    private let file: Mutex<File>

    /// - Throws: ``MockServerError`` `.recordFile` when the file cannot be opened for appending.
    package init(path: String) throws(MockServerError) {
        guard let handle = fopen(path, "a") else {
            throw MockServerError(.recordFile, "cannot open record file \(path): \(String(cString: strerror(errno)))")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        file = Mutex(File(handle: handle, encoder: encoder))
    }

    deinit { file.withLock { _ = fclose($0.handle) } }

    /// Writes one line and flushes it, so a reader sees each request as soon as it was answered.
    package func write(_ request: some Encodable) {
        file.withLock { file in
            guard var line = try? file.encoder.encode(request) else { return }
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, file.handle) }
            fflush(file.handle)
        }
    }
}
