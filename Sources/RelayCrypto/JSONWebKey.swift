/// A JSON Web Key (RFC 7517 §4) as far as a signature check needs it: an EC P-256 key (`x`, `y`, RFC 7518
/// §6.2.1) or an RSA key (`n`, `e`, §6.3.1), each a base64url big-endian number. Other members are ignored.
public struct JSONWebKey: Codable, Sendable, Equatable {
    /// `EC` or `RSA` (others are not used).
    public var kty: String
    public var kid: String?
    /// `sig` when given (an `enc` key is not used for signatures).
    public var use: String?
    /// The one algorithm the key is for, when given.
    public var alg: String?
    public var crv: String?
    public var x: String?
    public var y: String?
    public var n: String?
    public var e: String?

    public init(
        kty: String,
        kid: String? = nil,
        use: String? = nil,
        alg: String? = nil,
        crv: String? = nil,
        x: String? = nil,
        y: String? = nil,
        n: String? = nil,
        e: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.crv = crv
        self.x = x
        self.y = y
        self.n = n
        self.e = e
    }
}
