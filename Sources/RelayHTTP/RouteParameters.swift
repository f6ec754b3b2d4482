/// The values captured by a route's `{name}` segments, percent-decoded and never empty.
public struct RouteParameters: Sendable, Equatable {
    /// Every captured value by parameter name.
    public var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    /// The value for `name`, or `nil` if the route has no such parameter.
    public subscript(_ name: String) -> String? { values[name] }

    /// The value for `name`.
    ///
    /// - Throws: ``HTTPError`` 500 `internal_error` when the route declares no such parameter (a wiring bug).
    public func require(_ name: String) throws -> String {
        guard let value = values[name] else { throw HTTPError.internal() }
        return value
    }
}
