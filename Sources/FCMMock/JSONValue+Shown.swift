import RelayCore

extension JSONValue {
    /// The value as JSON text would show it, for the mock's error messages (strings quoted, containers
    /// elided), as FCM quotes a value of the wrong type.
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
