import Foundation
import MockHTTP2
import RelayCLI

/// Where both mocks listen, from the same options: `--host ADDR`, `--port N`, and `--tls-cert FILE`,
/// `--tls-key FILE` (default the fixture pair when present) or `--h2c`.
enum MockListenArguments {
    /// The options' names, for ``Arguments``.
    static let options: Set<String> = ["host", "port", "tls-cert", "tls-key"]
    static let switches: Set<String> = ["h2c"]

    /// The options' usage lines, their explanations starting at `column`.
    static func help(defaultPort: Int, column: Int) -> String {
        [
            ("--host ADDR", "listen address (default 127.0.0.1)"),
            ("--port N", "TCP port (default \(defaultPort); 0 picks one)"),
            ("--tls-cert FILE", "server certificate, PEM (default fixtures/tls/server.pem when present)"),
            ("--tls-key FILE", "its private key, PEM (default fixtures/tls/server.key when present)"),
            ("--h2c", "cleartext HTTP/2 (prior knowledge) instead of TLS"),
        ].map { "  " + $0.0.padding(toLength: column - 2, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    /// `--host`, default `127.0.0.1`.
    static func host(from arguments: Arguments) -> String { arguments.value("host") ?? "127.0.0.1" }

    /// `--port`, default `defaultPort`.
    /// - Throws: ``Arguments/Problem`` when it is not a TCP port (0 to 65535).
    static func port(from arguments: Arguments, default defaultPort: Int) throws(Arguments.Problem) -> Int {
        let port = try arguments.integer("port", default: defaultPort) ?? defaultPort
        guard (0...65535).contains(port) else { throw Arguments.Problem(description: "--port must be 0 to 65535") }
        return port
    }

    /// The TLS settings the options ask for; nil with `--h2c`.
    /// - Parameter clientCA: a PEM CA whose client certificates the server accepts.
    /// - Throws: ``Arguments/Problem`` when the certificate or key cannot be read.
    static func tls(from arguments: Arguments, clientCA: String? = nil) throws(Arguments.Problem) -> ServerTLS? {
        guard !arguments.flag("h2c") else { return nil }
        let certificate = arguments.value("tls-cert") ?? "fixtures/tls/server.pem"
        let key = arguments.value("tls-key") ?? "fixtures/tls/server.key"
        guard FileManager.default.isReadableFile(atPath: certificate), FileManager.default.isReadableFile(atPath: key)
        else {
            throw Arguments.Problem(
                description: "cannot read \(certificate) and \(key): give --tls-cert/--tls-key or --h2c"
            )
        }
        return ServerTLS(certificatePath: certificate, privateKeyPath: key, clientCAPath: clientCA)
    }
}
