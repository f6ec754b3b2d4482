/// Why a mock server (any service's ``MockServer``) could not start, load a script, or wait. `MockAPNsError` and
/// `MockFCMError` name it in each mock's API.
public struct MockServerError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        /// The configuration is unusable (bad port, zero stream limit, ...).
        public static let invalidConfiguration = Code(description: "invalidConfiguration")
        /// Binding or listening failed (`socket`, `bind`, `listen`, `getaddrinfo`).
        public static let listen = Code(description: "listen")
        /// TLS setup failed (certificate, key or CA file).
        public static let tls = Code(description: "tls")
        /// A script file could not be read or decoded, or names what the mock does not know.
        public static let script = Code(description: "script")
        /// The record file could not be opened.
        public static let recordFile = Code(description: "recordFile")
        /// A wait ran out of time.
        public static let timeout = Code(description: "timeout")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message alone (it says what failed and why); ``code`` is for programs.
    public var description: String { message }
}
