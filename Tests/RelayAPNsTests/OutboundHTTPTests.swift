import Foundation
import RelayCurl
import Testing

@Suite struct OutboundHTTPTests {
    @Test func aClosedPortIsAConnectFailure() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let probe = await #expect(throws: TransportError.self) {
            try await OutboundHTTP.probe(baseURL: "https://127.0.0.1:\(port)", timeout: .seconds(2))
        }
        #expect(probe?.code == .connect)
        let post = await #expect(throws: TransportError.self) {
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
        let error = await #expect(throws: TransportError.self) {
            _ = try await OutboundHTTP.post(url: url, body: Data(), headers: [], timeout: .seconds(1))
        }
        #expect(error?.code == .invalidURL)
    }
}
