import Foundation

extension Configuration {
    /// How an app's users prove who they are when the app calls the relay itself: `Authorization: Bearer
    /// <token>` with `X-PushRelay-App: <app id>`. A JWT the relay verifies, a token the app's Ditto auth
    /// webhook accepts, or both (a token that is not a JWT, or one no configured key can check, goes to the
    /// webhook).
    public struct UserAuth: Codable, Sendable, Equatable {
        /// JWTs signed by the app's identity provider.
        public var jwt: JWT?
        /// The auth webhook the app already runs for Ditto's "online with authentication".
        public var dittoAuthWebhook: DittoAuthWebhook?

        public init(jwt: JWT? = nil, dittoAuthWebhook: DittoAuthWebhook? = nil) {
            self.jwt = jwt
            self.dittoAuthWebhook = dittoAuthWebhook
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case jwt, dittoAuthWebhook }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                jwt: try c.decodeIfPresent(JWT.self, forKey: .jwt),
                dittoAuthWebhook: try c.decodeIfPresent(DittoAuthWebhook.self, forKey: .dittoAuthWebhook)
            )
        }

        /// JWT rules (RFC 7519): ES256 or RS256 signatures by the keys given, `exp` required, `nbf` and
        /// `iat` honoured, each within ``leewaySeconds``.
        public struct JWT: Codable, Sendable, Equatable {
            /// PEM public keys (`BEGIN PUBLIC KEY`: P-256 for ES256, RSA of 2048 bits or more for RS256).
            public var publicKeyFiles: [String]
            /// A JWKS document (RFC 7517 §5) on disk.
            public var jwksFile: String?
            /// A JWKS document fetched over https (http only to a loopback host): at first use, then again
            /// for a `kid` it does not hold or once it is an hour old, at most once a minute.
            public var jwksURL: String?
            /// The `iss` a token must carry; none: any.
            public var issuer: String?
            /// A value `aud` must hold (a string or one of an array); none: any, so keys shared with other
            /// apps would let their tokens in.
            public var audience: String?
            /// Clock difference allowed for `exp`, `nbf` and `iat`, in SECONDS. Default 60.
            public var leewaySeconds: Int
            /// The claim that holds the user id (a string within the id rule). Default `sub`.
            public var userIdClaim: String
            /// The algorithms taken, of `ES256` and `RS256`; none: both (each key checks only its own).
            public var algorithms: [JWSAlgorithm]?

            public init(
                publicKeyFiles: [String] = [],
                jwksFile: String? = nil,
                jwksURL: String? = nil,
                issuer: String? = nil,
                audience: String? = nil,
                leewaySeconds: Int = 60,
                userIdClaim: String = "sub",
                algorithms: [JWSAlgorithm]? = nil
            ) {
                self.publicKeyFiles = publicKeyFiles
                self.jwksFile = jwksFile
                self.jwksURL = jwksURL
                self.issuer = issuer
                self.audience = audience
                self.leewaySeconds = leewaySeconds
                self.userIdClaim = userIdClaim
                self.algorithms = algorithms
            }

            enum CodingKeys: String, CodingKey, CaseIterable {
                case publicKeyFiles, jwksFile, jwksURL, issuer, audience, leewaySeconds, userIdClaim, algorithms
            }

            public init(from decoder: any Decoder) throws {
                try decoder.rejectUnknownKeys(CodingKeys.self)
                let c = try decoder.container(keyedBy: CodingKeys.self)
                self.init(
                    publicKeyFiles: try c.decodeIfPresent([String].self, forKey: .publicKeyFiles) ?? [],
                    jwksFile: try c.decodeIfPresent(String.self, forKey: .jwksFile),
                    jwksURL: try c.decodeIfPresent(String.self, forKey: .jwksURL),
                    issuer: try c.decodeIfPresent(String.self, forKey: .issuer),
                    audience: try c.decodeIfPresent(String.self, forKey: .audience),
                    leewaySeconds: try c.decodeIfPresent(Int.self, forKey: .leewaySeconds) ?? 60,
                    userIdClaim: try c.decodeIfPresent(String.self, forKey: .userIdClaim) ?? "sub",
                    algorithms: try c.decodeIfPresent([JWSAlgorithm].self, forKey: .algorithms)
                )
            }
        }

        /// Ditto's auth webhook contract: the relay POSTs `{"token","provider"}` as Ditto does and takes
        /// `{"authenticate": true, "userID": ..., "expirationSeconds": ...}`.
        public struct DittoAuthWebhook: Codable, Sendable, Equatable {
            /// The webhook: https (http only to a loopback host), without user:password.
            public var url: String
            /// The provider name sent, as the app passes it to Ditto's `login(token:provider:)`.
            public var provider: String
            /// An accepted token is taken without asking again for its `expirationSeconds`, at most this many
            /// SECONDS. Default 600.
            public var maxCacheSeconds: Int
            /// A refused token is refused without asking again for this many SECONDS. Default 10.
            public var refusalCacheSeconds: Int
            /// How long the webhook may take to answer, connect included, in MILLISECONDS. Default 5000.
            public var timeoutMilliseconds: Int

            public init(
                url: String,
                provider: String,
                maxCacheSeconds: Int = 600,
                refusalCacheSeconds: Int = 10,
                timeoutMilliseconds: Int = 5000
            ) {
                self.url = url
                self.provider = provider
                self.maxCacheSeconds = maxCacheSeconds
                self.refusalCacheSeconds = refusalCacheSeconds
                self.timeoutMilliseconds = timeoutMilliseconds
            }

            enum CodingKeys: String, CodingKey, CaseIterable {
                case url, provider, maxCacheSeconds, refusalCacheSeconds, timeoutMilliseconds
            }

            public init(from decoder: any Decoder) throws {
                try decoder.rejectUnknownKeys(CodingKeys.self)
                let c = try decoder.container(keyedBy: CodingKeys.self)
                self.init(
                    url: try c.decode(String.self, forKey: .url),
                    provider: try c.decode(String.self, forKey: .provider),
                    maxCacheSeconds: try c.decodeIfPresent(Int.self, forKey: .maxCacheSeconds) ?? 600,
                    refusalCacheSeconds: try c.decodeIfPresent(Int.self, forKey: .refusalCacheSeconds) ?? 10,
                    timeoutMilliseconds: try c.decodeIfPresent(Int.self, forKey: .timeoutMilliseconds) ?? 5000
                )
            }
        }
    }
}
