/// Why ``HTTPServer/start()`` failed, or why a ``TLSCertificate`` cannot be used.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The configuration did not validate.
        public static let invalidConfiguration = Code(name: "invalid_configuration")
        /// The host did not resolve to an address.
        public static let resolve = Code(name: "resolve")
        /// `MHD_start_daemon` failed (address in use, no permission, ...).
        public static let start = Code(name: "start")
        /// The TLS certificate or key cannot be read or used, or libmicrohttpd has no TLS.
        public static let tls = Code(name: "tls")
        /// `start()` called twice.
        public static let alreadyStarted = Code(name: "already_started")
        public var description: String { name }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message alone (it says what failed and why); ``code`` is for programs.
    public var description: String { message }
}
