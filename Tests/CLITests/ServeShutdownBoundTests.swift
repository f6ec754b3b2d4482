import Foundation
import RelayTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `push-relay serve` past `shutdownTimeoutSeconds`: a request whose body never comes keeps the listener
/// draining, and the real SIGTERM's graceful stop escalates to a critical JSON line and exit 1.
@Suite struct ServeShutdownBoundTests {
    @Test func aShutdownPastItsBoundExits1WithACriticalLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try directory.serve([
            "PUSH_RELAY_SHUTDOWN_TIMEOUT_SECONDS": "1",
            // The body deadlines far beyond the bound, so only the escalation ends the request.
            "PUSH_RELAY_HTTP_BODY_RATE_GRACE_SECONDS": "600",
            "PUSH_RELAY_HTTP_BODY_TIMEOUT_SECONDS": "600",
        ])
        let apiKey = try await relay.line(startingWith: "API key: ")
        let port = try await relay.listeningPort()
        let socket = try StalledUpload(port: port, apiKey: apiKey)
        defer { socket.close() }
        // Once answered `100 Continue`, the request is in flight: its body is awaited and never comes.
        #expect(try await socket.waitForContinue())
        relay.signal(SIGTERM)
        let exit = try await relay.exitStatus()
        #expect(exit.exited && exit.status == 1, "\(exit)\n\(relay.stderr)")
        let lines = try ServeLogTests.objects(relay.stderr)
        let bound = try #require(lines.first { ($0["msg"] as? String)?.hasPrefix("shutdown bound reached") == true })
        #expect(bound["level"] as? String == "critical", "\(bound)")
        #expect((bound["services.running"] as? String)?.contains("http") == true, "\(bound)")
        #expect(!lines.contains { $0["msg"] as? String == "relay stopped" })
    }
}

/// A plain TCP connection that sends a request's headers with `Expect: 100-continue` and a body length,
/// then no body.
final class StalledUpload: Sendable {
    private let descriptor: Int32

    init(port: Int, apiKey: String) throws {
        descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "connect: \(errno)")
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let headers =
            "POST /v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(apiKey)\r\n"
            + "Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n"
        let bytes = Array(headers.utf8)
        try #require(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
    }

    /// Reads (off the cooperative pool, 60 s at most) until the server's `100 Continue`.
    func waitForContinue() async throws -> Bool {
        let descriptor = self.descriptor
        return await withCheckedContinuation { continuation in
            Thread {
                var received = ""
                var buffer = [UInt8](repeating: 0, count: 1024)
                while !received.contains("100 Continue") {
                    let count = Glibc.read(descriptor, &buffer, buffer.count)
                    guard count > 0 else { break }
                    received += String(decoding: buffer[..<count], as: UTF8.self)
                }
                continuation.resume(returning: received.contains("100 Continue"))
            }.start()
        }
    }

    func close() { _ = Glibc.close(descriptor) }
}
