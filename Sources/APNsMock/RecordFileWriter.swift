import Foundation

/// Appends recorded requests to a file as JSON lines. Not `Sendable`: only the event-loop thread uses it.
final class RecordFileWriter {
    private let file: UnsafeMutablePointer<FILE>
    private let encoder: JSONEncoder

    init(path: String) throws(MockAPNsError) {
        guard let file = fopen(path, "a") else {
            throw MockAPNsError(.recordFile, "cannot open record file \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
        encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    }

    deinit { fclose(file) }

    /// Writes one line and flushes it, so a reader sees each request as soon as it was answered.
    func write(_ request: RecordedRequest) {
        guard var line = try? encoder.encode(request) else { return }
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, file) }
        fflush(file)
    }
}
