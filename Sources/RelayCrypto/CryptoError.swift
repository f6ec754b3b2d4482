/// A failure in an OpenSSL call, naming the call and OpenSSL's own error text.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        let raw: String
        /// A key could not be read (not PEM, wrong type, not P-256).
        public static let invalidKey = Code(raw: "invalidKey")
        /// Signing or hashing failed inside OpenSSL.
        public static let operationFailed = Code(raw: "operationFailed")
        /// A token or signature is malformed.
        public static let malformed = Code(raw: "malformed")
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
