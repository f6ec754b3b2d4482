import CMicroHTTPD
import Foundation
import RelayCore
import Synchronization

/// What libmicrohttpd reports through `MHD_OPTION_EXTERNAL_LOGGER` (why a start failed, a connection it
/// dropped): each message is logged at debug, and the latest ones are kept so a failed start can say why.
final class MHDMessages: Sendable {
    private let recent = Mutex<[String]>([])
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The messages kept, oldest first (at most 16).
    var latest: [String] { recent.withLock { $0 } }

    func record(_ message: String) {
        logger.debug("libmicrohttpd", ["mhd.message": message])
        recent.withLock { messages in
            messages.append(message)
            if messages.count > 16 { messages.removeFirst() }
        }
    }

    /// The C logger; `cls` is the unretained ``MHDMessages`` (kept alive as long as its daemon).
    static let callback: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let message = text.trimmingCharacters(in: .whitespacesAndNewlines)
        Unmanaged<MHDMessages>.fromOpaque(cls).takeUnretainedValue().record(message)
    }
}
