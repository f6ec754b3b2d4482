/// Limits APNs enforces on a request, in one place for the client's local checks and the mock's answers.
///
/// Source: Apple, "Sending notification requests to APNs" and "Generating a remote notification".
public enum APNsLimits {
    /// apns-collapse-id: at most 64 bytes of UTF-8.
    public static let collapseIdMaxBytes = 64
    /// A provider token older than this (by its `iat`) is refused with 403 ExpiredProviderToken: 3600 s.
    public static let providerTokenMaxAgeSeconds = 3600
    /// A new provider token on a connection sooner than this after the last one: 429
    /// TooManyProviderTokenUpdates. 1200 s (20 minutes).
    public static let providerTokenMinRefreshSeconds = 1200
    /// The path prefix of the one request APNs serves: `POST /3/device/<hex token>`.
    public static let devicePathPrefix = "/3/device/"
}
