/// A string-valued enum whose decoding error names the value found and every value allowed, e.g.
/// `must be one of sandbox, production, not 'staging'` (Swift's own: "Cannot initialize APNsEnvironment from
/// invalid String value staging").
public protocol ListedCases: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension ListedCases {
    /// - Throws: `DecodingError.dataCorrupted` listing the allowed values; `typeMismatch` for a non-string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            let allowed = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "must be one of \(allowed), not '\(text)'"
            )
        }
        self = value
    }
}
