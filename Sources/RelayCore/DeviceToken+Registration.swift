extension DeviceToken {
    /// The scopes (``PushToken/scope``) an APNs token can have: the environments' names.
    public static let scopes: [String?] = APNsEnvironment.allCases.map(\.rawValue)

    /// The environment the token is sent to and stored under: its own, `production` when not known.
    public var sendingEnvironment: APNsEnvironment { environment ?? .production }

    /// The `environment` column's text for the token (``sendingEnvironment``).
    public var storedScope: String { sendingEnvironment.rawValue }

    /// The token registered in the environment named `scope`; nil leaves it without one.
    /// - Throws: ``ParseError`` when `scope` names no environment.
    public func registered(scope: String?) throws(ParseError) -> DeviceToken {
        var token = self
        guard let scope else {
            token.environment = nil
            return token
        }
        guard let environment = APNsEnvironment(rawValue: scope) else {
            throw ParseError(description: "APNs environment '\(scope)' is unknown")
        }
        token.environment = environment
        return token
    }
}
