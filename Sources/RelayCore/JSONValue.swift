/// Any JSON value, as JSONDecoder reads it: what a JWT's claims hold when their names come from the
/// configuration (`userIdClaim`) and their types are checked one by one.
public enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
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

    /// The text of a string value, else nil.
    public var string: String? { if case .string(let text) = self { text } else { nil } }

    /// The value of a finite number, else nil.
    public var number: Double? { if case .number(let value) = self, value.isFinite { value } else { nil } }
}
