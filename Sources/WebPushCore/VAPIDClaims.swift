/// The claims of a VAPID JWT (RFC 8292 §2): the push service's origin, when the token expires, and who to
/// contact.
public struct VAPIDClaims: Codable, Sendable, Hashable {
    /// The push resource's origin, `scheme://host[:port]` (``PushEndpoint/origin``).
    public var aud: String
    /// Expiry, UNIX epoch SECONDS; at most 24 hours after the request.
    public var exp: Int
    /// A `mailto:` or `https:` contact (``VAPIDSubject``).
    public var sub: String

    public init(aud: String, exp: Int, sub: String) {
        self.aud = aud
        self.exp = exp
        self.sub = sub
    }
}

/// The JOSE header of a VAPID JWT: `{"typ": "JWT", "alg": "ES256"}` (RFC 8292 §2, §3.1).
struct VAPIDHeader: Codable, Sendable, Equatable {
    var typ: String? = "JWT"
    var alg: String = "ES256"
}
