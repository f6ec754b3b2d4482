import Foundation
import Testing

@testable import RelayAPNs

@Suite struct OutboundHTTPTests {
    /// A loopback port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aClosedPortIsAConnectFailure() async throws {
        let port = try Self.closedPort()
        let probe = await #expect(throws: APNsTransportError.self) {
            try await OutboundHTTP.probe(baseURL: "https://127.0.0.1:\(port)", timeout: .seconds(2))
        }
        #expect(probe?.code == .connect)
        let post = await #expect(throws: APNsTransportError.self) {
            _ = try await OutboundHTTP.post(
                url: "http://127.0.0.1:\(port)/feedback",
                body: Data("{}".utf8),
                headers: [("Content-Type", "application/json")],
                timeout: .seconds(2)
            )
        }
        #expect(post?.code == .connect)
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "not a url"])
    func onlyHTTPAndHTTPSAreUsed(url: String) async throws {
        let error = await #expect(throws: APNsTransportError.self) {
            _ = try await OutboundHTTP.post(url: url, body: Data(), headers: [], timeout: .seconds(1))
        }
        #expect(error?.code == .invalidURL)
    }
}
