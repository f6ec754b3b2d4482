import Foundation

/// Header fields of a request: names lowercased on the way in, looked up case-insensitively, in arrival order.
///
/// Field names are case-insensitive (RFC 9110 §5.1). A name sent more than once keeps every value.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields as `(name, value)` with names lowercased, in arrival order.
    public private(set) var fields: [(name: String, value: String)]

    /// Empty headers.
    public init() { fields = [] }

    /// Headers from `(name, value)` pairs; names are lowercased.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0.lowercased(), value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// Appends a field (the name is lowercased).
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name.lowercased(), value: value))
    }

    /// The first value for `name` (any case), or `nil`.
    public subscript(_ name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.name == key }?.value
    }

    /// Every value for `name` (any case), in arrival order.
    public func values(for name: String) -> [String] {
        let key = name.lowercased()
        return fields.filter { $0.name == key }.map(\.value)
    }

    /// ``values(for:)``, each without the white space (SP, HTAB) around it, which RFC 9110 §5.5 does not
    /// count as part of a field value (libmicrohttpd keeps what trails it). For fields the relay reads as
    /// values; a framing field is checked as sent, since libmicrohttpd frames by it as sent.
    public func trimmedValues(for name: String) -> [String] {
        values(for: name).map { Self.trimmed(Substring($0)) }
    }

    /// `text` without RFC 9110 §5.6.3's OWS (SP and HTAB) at either end. It reads only the ends' bytes: a
    /// header value of tens of kilobytes costs no more than a short one (Foundation's `trimmingCharacters`
    /// read every character of it).
    public static func trimmed(_ text: Substring) -> String {
        let bytes = text.utf8
        let isOWS = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isOWS($0) }), let last = bytes.lastIndex(where: { !isOWS($0) })
        else { return "" }
        return String(text[first..<bytes.index(after: last)])
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.elementsEqual(b.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
