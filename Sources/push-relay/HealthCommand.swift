import Foundation
import RelayCLI
import RelayCore
import RelayCurl

/// `push-relay health [--config FILE] [--host ADDR] [--port N] [--timeout SECONDS]`: asks the relay that this
/// configuration describes for its `/healthz`, over HTTPS when `http.tls` is set (trusting the configured
/// certificate), and exits 0 when it answers 200, 1 otherwise; for a container's health check.
enum HealthCommand {
    static let help = """
        usage: push-relay health [--config FILE] [--host ADDR] [--port N] [--timeout SECONDS]
          reads the configuration as 'serve' does (--config or PUSH_RELAY_CONFIG, PUSH_RELAY_* variables, these
          options) and GETs /healthz of that relay: https when http.tls is set, trusting its certificate; an
          address listening on all interfaces is asked on loopback. Exit status 0 healthy, 1 not.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: ["help"],
            options: ["config", "host", "port", "timeout"],
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        let timeout = try arguments.positiveInteger("timeout", default: 5)
        var http = try ConfigurationFile.load(arguments).configuration.http
        if let host = arguments.value("host") { http.host = host }
        if let port = try arguments.integer("port") { http.port = port }
        // Exit status 1, not 2: a container engine reads 2 as reserved, not as unhealthy.
        guard (1...65_535).contains(http.port) else {
            printError("unhealthy: http.port \(http.port) names no port to ask (0 picks a free one)")
            return 1
        }
        let url = "\(http.tls.isEnabled ? "https" : "http")://\(probeHost(http.host)):\(http.port)/healthz"
        do {
            let status = try await OutboundHTTP.getOwn(
                url: url,
                certificateFile: http.tls.certificateFile,
                timeout: .seconds(timeout)
            )
            guard status == 200 else {
                printError("unhealthy: \(url) answered \(status)")
                return 1
            }
            say("healthy: \(url)")
            return 0
        } catch {
            printError("unhealthy: \(url): \(error)")
            return 1
        }
    }

    /// The address to ask a listener on `host` at: loopback for the wildcard addresses, brackets around an
    /// IPv6 address.
    static func probeHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::", "[::]": "[::1]"
        default: host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.writeLine(line)
    }
}
