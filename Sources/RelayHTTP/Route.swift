/// A registered route: method and pattern, e.g. `("PUT", "/v1/devices/{token}")`, in the same spelling as
/// an OpenAPI `paths` key.
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// The method, uppercase, e.g. `"GET"`.
    public var method: String
    /// The path pattern: `/`-separated literal segments and whole-segment `{name}` parameters.
    public var pattern: String

    public init(method: String, pattern: String) {
        self.method = method
        self.pattern = pattern
    }

    public var description: String { "\(method) \(pattern)" }
}
