import Foundation

/// A Ditto document as a change event carries it: its `_id` (a string, exactly as Ditto has it: Swift
/// writes upper-case UUIDs) and its fields as JSON.
public struct DittoDocument: Sendable, Equatable {
    public let id: String
    public let fields: [String: JSONValue]

    public init(id: String, fields: [String: JSONValue]) {
        self.id = id
        self.fields = fields
    }

    /// The document a JSON object is (a change event's value, an item of a DQL query's answer), or nil when
    /// `value` is no object or its `_id` is no string.
    public init?(_ value: JSONValue) {
        guard case .object(let fields) = value, let id = fields["_id"]?.string else { return nil }
        self.init(id: id, fields: fields)
    }

    /// Whether its `_id`, or a string or key anywhere in it, holds NUL (U+0000) (``JSONValue/holdsNUL``): a
    /// document the relay does not keep, from a change event or a re-read alike.
    public var holdsNUL: Bool { id.holdsNUL || JSONValue.object(fields).holdsNUL }

    /// The string at `name`, or nil when absent, null or of another type.
    public func string(_ name: String) -> String? { fields[name]?.string }

    /// Whether `name` holds `true` (absent, null and any other value read as false).
    public func flag(_ name: String) -> Bool { fields[name] == .bool(true) }

    /// Whether `name` holds anything but null.
    public func isSet(_ name: String) -> Bool {
        guard let value = fields[name] else { return false }
        return value != .null
    }

    /// The RFC 3339 / ISO 8601 time at `name` (with or without a fraction), or nil.
    public func date(_ name: String) -> Date? { string(name).flatMap(Timestamp.parse) }

    /// The strings of the array at `name` (other elements skipped), or nil when it is not an array.
    public func strings(_ name: String) -> [String]? {
        guard case .array(let values)? = fields[name] else { return nil }
        return values.compactMap(\.string)
    }

    /// The object at `name`, or nil when it is not one.
    public func object(_ name: String) -> [String: JSONValue]? {
        guard case .object(let object)? = fields[name] else { return nil }
        return object
    }
}
