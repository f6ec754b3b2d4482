/// Why a mock's HTTP/2 server could not start or open its record file.
package struct ServerError: Error, Sendable, CustomStringConvertible {
    package enum Code: Sendable, Equatable {
        /// The configuration is unusable (bad port, zero stream limit).
        case invalidConfiguration
        /// Binding or listening failed (`socket`, `bind`, `listen`, `getaddrinfo`).
        case listen
        /// TLS setup failed (certificate, key or CA file).
        case tls
        /// The record file could not be opened.
        case recordFile
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
