import Foundation
import RelayTestSupport
import Testing

/// The relay's own routes behind the HTTP server's header checks: a backend call whose Content-Length is
/// folded, cut by a NUL or hidden behind a bare CR is refused and its connection closed, so the bytes after
/// it never run as a second request.
@Suite struct HeaderSmugglingTests {
    @Test(arguments: [
        "Content-Length: 3\r\n x\r\n\r\n{x}",
        "Content-Length: 3\r\n\t3\r\n\r\n{x}",
        "Content-Length: 0\r\n 34\r\n\r\n",
        "Content-Length: 34\r\n x\r\n\r\n",
        "Content-Length: 0\u{0}34\r\n\r\n",
        "X-A: x\rContent-Length: 34\r\n\r\n",
    ])
    func aSmuggledLengthIsRefusedAndTheNextRequestNotRun(_ tail: String) async throws {
        try await withRelayAndMock { harness in
            let raw = try await harness.rawExchange(
                "PUT /v1/rooms/of/members/z HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.app.apiKey)\r\n"
                    + tail + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(raw.hasPrefix("HTTP/1.1 400"), "\(raw)")
            #expect(raw.contains("malformed_header"), "\(raw)")
            #expect(raw.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer: \(raw)")
        }
    }
}
