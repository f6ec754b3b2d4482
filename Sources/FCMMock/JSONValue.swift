/// Any JSON value, decoded by Foundation's JSONDecoder, so the mock can check a message's shape (a number
/// where FCM wants a string, a key FCM does not know) instead of having it silently dropped or converted.
enum JSONValue: Decodable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The text of a string value; nil for any other.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value as JSON text would show it, for error messages (strings quoted, containers elided).
    var shown: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? "\(Int64(number))" : "\(number)"
        case .bool(let flag): "\(flag)"
        case .null: "null"
        case .array: "[...]"
        case .object: "{...}"
        }
    }
}
