/// Which APNs a device token belongs to: tokens from development builds work only in sandbox.
public enum APNsEnvironment: String, Sendable, Codable, ListedCases {
    case sandbox, production

    /// The host Apple serves this environment on (Apple, "Sending notification requests to APNs").
    public var host: String {
        switch self {
        case .sandbox: "api.sandbox.push.apple.com"
        case .production: "api.push.apple.com"
        }
    }

    /// `https://<host>:443`, the base URL requests go to.
    public var baseURL: String { "https://\(host):443" }
}
