/// A string-valued enum whose decoding error names the value found and every value allowed, e.g.
/// `must be one of sandbox, production, not 'staging'` (Swift's own: "Cannot initialize APNsEnvironment from
/// invalid String value staging").
public protocol ListedCases: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension ListedCases {
    /// "must be one of a, b, c, not 'text'": what a value outside the list is told, in configuration files
    /// and on the command line alike.
    public static func refusal(of text: String) -> String {
        "must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'"
    }

    /// - Throws: `DecodingError.dataCorrupted` listing the allowed values; `typeMismatch` for a non-string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.refusal(of: text))
        }
        self = value
    }
}
