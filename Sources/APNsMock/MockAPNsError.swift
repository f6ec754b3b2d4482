import MockHTTP2

/// Why the mock APNs server could not start, load a script, or wait.
public struct MockAPNsError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        /// The configuration is unusable (bad port, zero stream limit, ...).
        public static let invalidConfiguration = Code(description: "invalidConfiguration")
        /// Binding or listening failed (`socket`, `bind`, `listen`, `getaddrinfo`).
        public static let listen = Code(description: "listen")
        /// TLS setup failed (certificate, key or CA file).
        public static let tls = Code(description: "tls")
        /// A script file could not be read or decoded.
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

extension MockAPNsError {
    /// The mock APNs' error for its HTTP/2 server's (same code and message).
    init(_ error: ServerError) {
        let code: Code
        switch error.code {
        case .invalidConfiguration: code = .invalidConfiguration
        case .listen: code = .listen
        case .tls: code = .tls
        case .recordFile: code = .recordFile
        }
        self.init(code, error.message)
    }
}
