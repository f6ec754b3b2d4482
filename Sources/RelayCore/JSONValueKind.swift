import Foundation

/// How an error names the JSON value a Swift type is decoded from ("must be an integer"): the words of a
/// request's and a configuration's type mismatch, instead of Swift's own (`Expected to decode Int but found a
/// string instead.`).
public enum JSONValueKind {
    /// `a string`, `a boolean`, `an integer`, `a number`, `an array`, `an object`, else `a valid <type>`.
    public static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type,
            is UInt16.Type, is UInt32.Type, is UInt64.Type:
            return "an integer"
        case is Double.Type, is Float.Type, is Decimal.Type: return "a number"
        default: break
        }
        let name = String(describing: type)
        if name.hasPrefix("Array<") || name.hasPrefix("[") && !name.contains(":") { return "an array" }
        if name.hasPrefix("Dictionary<") || name.hasPrefix("[") { return "an object" }
        return "a valid \(name)"
    }
}
