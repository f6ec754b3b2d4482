/// A ``WebPushClientConfiguration`` that cannot be used, with every problem found at once.
public struct WebPushConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line per problem, e.g. `maxInFlight must be at least 1`.
    public var problems: [String]
    public init(problems: [String]) { self.problems = problems }
    public var description: String { "invalid Web Push client configuration: " + problems.joined(separator: "; ") }
}
