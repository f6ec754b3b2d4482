/// Any JSON value, as JSONDecoder reads it: what a JWT's claims hold when their names come from the
/// configuration (`userIdClaim`) and their types are checked one by one, and a Ditto document.
///
/// A value nested deeper than ``maxDepth`` levels, counted from the top of the decoded text (an event in
/// a JSON array body is one level deeper than alone), is refused: a document's depth is the sender's to
/// choose, and each level costs the decoder work in proportion to the depth (the coding path of every
/// failed attempt).
public enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The deepest a value may be nested in the decoded text: far past any chat document or token claim.
    public static let maxDepth = 64

    /// The `debugDescription` of the error a value nested past ``maxDepth`` throws.
    public static let tooDeep = "nested deeper than \(maxDepth) levels"

    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maxDepth else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: Self.tooDeep)
            )
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if var items = try? decoder.unkeyedContainer() {
            // An element's failure (too deep) is the value's, not a reason to try it as an object.
            var values: [JSONValue] = []
            while !items.isAtEnd { values.append(try items.decode(JSONValue.self)) }
            self = .array(values)
        } else {
            let members = try decoder.container(keyedBy: AnyKey.self)
            var object: [String: JSONValue] = [:]
            for key in members.allKeys where object[key.stringValue] == nil {
                object[key.stringValue] = try members.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
        }
    }

    /// The text of a string value, else nil.
    public var string: String? { if case .string(let text) = self { text } else { nil } }

    /// The value of a finite number, else nil.
    public var number: Double? { if case .number(let value) = self, value.isFinite { value } else { nil } }

    /// Whether a string or a key anywhere in the value holds NUL (``RelayCore/StringProtocol/holdsNUL``).
    public var holdsNUL: Bool {
        switch self {
        case .null, .bool, .number: false
        case .string(let text): text.holdsNUL
        case .array(let values): values.contains { $0.holdsNUL }
        case .object(let members): members.contains { $0.key.holdsNUL || $0.value.holdsNUL }
        }
    }
}
