/// A metadata value of a log line: text, or a number or boolean that a JSON line writes as a JSON number or
/// boolean (`"http.status": 503`, not `"503"`), so log queries compare and sum it without parsing.
///
/// Metadata takes any ``LogValueConvertible``: a `String` (or interpolation, `"\(error)"`) is text, an
/// integer, `Double` or `Bool` is that type.
public enum LogValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    /// The value as text (a number in decimal, `true`/`false`).
    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        }
    }
}

/// A JSON string, number or boolean. A double that is not finite (which JSON cannot hold) is written as its
/// text.
extension LogValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        case .double(let number) where number.isFinite: try container.encode(number)
        case .double(let number): try container.encode(String(number))
        case .bool(let flag): try container.encode(flag)
        }
    }
}

/// A value that metadata takes as it is (``Logger/Metadata``), by the ``LogValue`` it is logged as.
public protocol LogValueConvertible: Sendable {
    var logValue: LogValue { get }
}

extension LogValue: LogValueConvertible {
    public var logValue: LogValue { self }
}

extension String: LogValueConvertible {
    public var logValue: LogValue { .string(self) }
}

extension Substring: LogValueConvertible {
    public var logValue: LogValue { .string(String(self)) }
}

extension Bool: LogValueConvertible {
    public var logValue: LogValue { .bool(self) }
}

extension Double: LogValueConvertible {
    public var logValue: LogValue { .double(self) }
}

extension Int: LogValueConvertible {
    public var logValue: LogValue { .int(self) }
}

/// The fixed-width integers a count, status or port comes as; one that does not fit an `Int` is text.
extension BinaryInteger where Self: LogValueConvertible {
    public var logValue: LogValue { Int(exactly: self).map(LogValue.int) ?? .string(String(self)) }
}

extension Int32: LogValueConvertible {}
extension Int64: LogValueConvertible {}
extension UInt16: LogValueConvertible {}
extension UInt32: LogValueConvertible {}
extension UInt64: LogValueConvertible {}
