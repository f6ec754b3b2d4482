import Foundation
import Synchronization

/// A small logger of swift-log's shape: a label, levels, metadata with dotted keys, and a handler.
///
/// Never log a full device token or a secret: use ``DeviceToken/suffix`` (`token.suffix`).
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: String, Sendable, Codable, Comparable, ListedCases {
        case trace, debug, info, notice, warning, error, critical
        private var rank: Int { Self.allCases.firstIndex(of: self)! }
        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    }

    /// Key-value pairs attached to a line, e.g. `["request.id": "…", "http.status": status]`: text, or
    /// numbers and booleans a JSON line writes as such (``LogValue``).
    public typealias Metadata = [String: any LogValueConvertible]

    /// Where lines go.
    public protocol Handler: Sendable {
        func log(level: Level, label: String, message: String, metadata: Metadata)
    }

    public var label: String
    public var level: Level
    public var metadata: Metadata
    public var handler: any Handler

    public init(
        label: String,
        level: Level = .info,
        metadata: Metadata = [:],
        handler: any Handler = JSONLinesHandler.standardError
    ) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.handler = handler
    }

    /// A logger that drops everything (tests that do not look at logs).
    public static func disabled(_ label: String = "disabled") -> Logger {
        Logger(label: label, level: .critical, handler: NullHandler())
    }

    /// The same logger with more metadata on every line.
    public func with(_ extra: Metadata) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { $1 }
        return copy
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ extra: Metadata = [:]) {
        guard level >= self.level else { return }
        handler.log(level: level, label: label, message: message(), metadata: metadata.merging(extra) { $1 })
    }
    public func trace(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.trace, m(), x) }
    public func debug(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.debug, m(), x) }
    public func info(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.info, m(), x) }
    public func notice(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.notice, m(), x) }
    public func warning(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.warning, m(), x) }
    public func error(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.error, m(), x) }
    public func critical(_ m: @autoclosure () -> String, _ x: Metadata = [:]) { log(.critical, m(), x) }
}

/// Writes one JSON object a line: `{"ts":"…","level":"info","label":"…","msg":"…", <metadata>}`, `ts` in
/// RFC 3339 UTC with milliseconds and its `Z` (``Timestamp/rfc3339(_:)``), numbers and booleans of the
/// metadata as JSON numbers and booleans (``LogValue``).
public final class JSONLinesHandler: Logger.Handler {
    private let handle: Mutex<FileHandle>
    private let encoder: JSONEncoder
    public init(_ handle: FileHandle) {
        self.handle = Mutex(handle)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }
    public static let standardError = JSONLinesHandler(.standardError)
    public static let standardOutput = JSONLinesHandler(.standardOutput)

    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        var object = metadata.mapValues(\.logValue)
        object["ts"] = .string(Timestamp.rfc3339(Date()))
        object["level"] = .string(level.rawValue)
        object["label"] = .string(label)
        object["msg"] = .string(message)
        guard var line = try? encoder.encode(object) else { return }
        line.append(0x0A)
        handle.withLock { _ = $0.write(dropping: line) }
    }
}

/// Keeps lines in memory, for tests that assert what was (and was not) logged.
public final class MemoryLogHandler: Logger.Handler {
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        /// The metadata's values as text.
        public var metadata: [String: String]
        /// The metadata as logged.
        public var values: [String: LogValue]
    }
    private let storage = Mutex<[Entry]>([])
    public init() {}
    public var entries: [Entry] { storage.withLock { $0 } }
    public func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        let values = metadata.mapValues(\.logValue)
        let entry = Entry(level: level, message: message, metadata: values.mapValues(\.description), values: values)
        storage.withLock { $0.append(entry) }
    }
}

struct NullHandler: Logger.Handler {
    func log(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {}
}
