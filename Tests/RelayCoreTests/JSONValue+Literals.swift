import RelayCore

// Ditto documents written as literals in tests: `"room-1"` for `.string("room-1")`, `["a", "b"]` for an
// array of strings.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
