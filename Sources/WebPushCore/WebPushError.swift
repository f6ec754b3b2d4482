/// Why a Web Push subscription, message body or VAPID credential was refused, or a crypto step failed.
///
/// The code says what kind of problem it is (a transport or mock maps it to an answer); the message says
/// exactly what is wrong in words a caller can show, and never holds a key, a secret or a full endpoint.
public struct WebPushError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: String
        /// A subscription's `endpoint` is not an acceptable push service URL.
        public static let invalidEndpoint = Code(raw: "invalidEndpoint")
        /// A key is unusable: `p256dh` not an uncompressed P-256 point on the curve, a VAPID key file not a
        /// P-256 private key.
        public static let invalidKey = Code(raw: "invalidKey")
        /// A subscription's `auth` secret is not 16 bytes of base64url.
        public static let invalidAuth = Code(raw: "invalidAuth")
        /// The plaintext does not fit one record of a 4,096-byte body (RFC 8291 §4).
        public static let payloadTooLarge = Code(raw: "payloadTooLarge")
        /// An `aes128gcm` body is not one well-formed record (header, record size, key id, delimiter, padding).
        public static let invalidBody = Code(raw: "invalidBody")
        /// An `aes128gcm` record does not decrypt: another key or auth secret, or altered bytes.
        public static let decryptionFailed = Code(raw: "decryptionFailed")
        /// A VAPID `sub` is neither a `mailto:` address nor an `https:` URL (RFC 8292 §2.1).
        public static let invalidSubject = Code(raw: "invalidSubject")
        /// A VAPID `Authorization` value or its JWT is malformed (RFC 8292 §3).
        public static let invalidCredentials = Code(raw: "invalidCredentials")
        /// A VAPID JWT's signature does not verify with its `k`.
        public static let badSignature = Code(raw: "badSignature")
        /// A VAPID JWT's `aud` is not the endpoint's origin (RFC 8292 §2).
        public static let wrongAudience = Code(raw: "wrongAudience")
        /// A VAPID JWT's `exp` is past, missing, or more than 24 hours ahead (RFC 8292 §2).
        public static let badExpiry = Code(raw: "badExpiry")
        /// A `Topic` is not 1 to 32 base64url characters (RFC 8030 §5.4).
        public static let invalidTopic = Code(raw: "invalidTopic")
        /// An OpenSSL operation failed (key generation, ECDH, HKDF, AES-GCM, signing).
        public static let cryptoFailed = Code(raw: "cryptoFailed")

        public var description: String { raw }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
