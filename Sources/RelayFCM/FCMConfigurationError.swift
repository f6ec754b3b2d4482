/// An ``FCMClientConfiguration`` that cannot be used, with every problem found at once.
public struct FCMConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line per problem, e.g. `maxInFlight must be at least 1`.
    public var problems: [String]
    public init(problems: [String]) { self.problems = problems }
    public var description: String { "invalid FCM client configuration: " + problems.joined(separator: "; ") }
}
