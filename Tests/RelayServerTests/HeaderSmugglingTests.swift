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

/// A stranger's body is never read: a call with no credential or an API key no app has, a path no route
/// serves and a target the router cannot read are answered from the headers (no `100 Continue`), and the connection closes.
@Suite struct BodiesBeforeCredentialsTests {
    @Test(arguments: [
        ("POST /v1/webhooks/did-send-message", "Authorization: Bearer not-a-key\r\n", "401"),
        ("POST /v1/devices", "", "401"),
        ("PUT /v1/rooms/r/members/u", "Authorization: Basic eDp5\r\n", "401"),
        ("POST /v1/nowhere", "Authorization: Bearer not-a-key\r\n", "404"),
        // A user credential for no app of this relay needs no JWKS or webhook to be refused.
        ("POST /v1/devices", "Authorization: Bearer not-a-token\r\nX-PushRelay-App: nosuch\r\n", "401"),
        ("POST /v1/devices", "Authorization: Bearer not-a-token\r\nX-PushRelay-App: \r\n", "401"),
        ("POST /v1/dead-tokens", "", "405"),
        // A target the router cannot read.
        ("POST /v1/devices?a=1&a=2", "", "400"),
        ("POST /v1/users/%ff/devices", "", "400"),
        ("POST /v1/devices?x=%zz", "", "400"),
    ])
    func aStrangersCallIsAnsweredBeforeItsBody(_ line: String, _ credential: String, _ status: String) async throws {
        try await withRelayAndMock { harness in
            let raw = try await harness.rawExchange(
                "\(line) HTTP/1.1\r\nHost: x\r\n\(credential)Content-Type: application/json\r\n"
                    + "Expect: 100-continue\r\nContent-Length: 5000\r\n\r\n"
            )
            #expect(raw.hasPrefix("HTTP/1.1 \(status)"), "\(raw)")
            #expect(!raw.contains("100 Continue"), "\(raw)")
            #expect(raw.lowercased().contains("connection: close"), "\(raw)")
        }
    }
}

/// A `:` line ended by a bare LF leaves no trace libmicrohttpd's buffer shows, and a proxy's field after it
/// (here a name past what the body check reads) starts the body: the call's error closes the connection, so
/// the request the proxy framed inside the body never runs.
@Suite struct HiddenFieldsTests {
    @Test func aRequestHiddenBehindABareLFColonLineDoesNotRun() async throws {
        try await withRelayAndMock { harness in
            let hidden =
                "GET /v1/users/alice/devices HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.app.apiKey)\r\n\r\n"
            let field = String(repeating: "X", count: 300) + ": a\r\n"
            let body = #"{"roomId":"r1","senderId":"alice","text":"hi"}"# + hidden
            let raw = try await harness.rawExchange(
                "POST /v1/webhooks/did-send-message HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.app.apiKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n:\n\(field)\r\n\(body)"
            )
            #expect(raw.hasPrefix("HTTP/1.1 400"), "\(raw)")
            #expect(raw.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer: \(raw)")
            #expect(raw.lowercased().contains("connection: close"), "\(raw)")
        }
    }
}
