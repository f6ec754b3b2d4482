import CMicroHTTPD
import Foundation
import RelayCore

/// One HTTP/1.1 request as the server hands it to a handler: the body is complete and within the limit.
public struct HTTPRequest: Sendable {
    /// The method as sent, e.g. `"GET"`, `"POST"` (methods are case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The percent-decoded path without the query, e.g. `"/v1/devices/abc"`.
    public var path: String
    /// The path split on `/` BEFORE percent-decoding, each segment then decoded: `/a/b%2Fc` gives
    /// `["a", "b/c"]`; `/` gives `[]`; `/a//b` gives `["a", "", "b"]`. The router matches on these.
    public var pathSegments: [String]
    /// Query parameters decoded by Foundation's `URLComponents` (RFC 3986: `+` stays `+`); a name without `=`
    /// maps to `""`. A name given twice is refused (400 `invalid_query`).
    public var query: [String: String]
    /// Header fields, case-insensitive lookup.
    public var headers: HTTPHeaders
    /// The complete body (at most `HTTPServerConfiguration.maxBodyBytes` bytes).
    public var body: Data
    /// The peer's numeric IP address, e.g. `"127.0.0.1"` or `"::1"`; `""` when unknown.
    public var remoteAddress: String
    /// The client's numeric IP address: ``remoteAddress``, unless the peer is one of
    /// ``HTTPServerConfiguration/trustedProxies``; then the right-most address of `X-Forwarded-For` that is
    /// not a trusted proxy (see `TrustedProxies`).
    public var clientAddress: String
    /// The request id echoed in the `X-Request-Id` response header and carried in logs as `request.id`:
    /// the client's `X-Request-Id` when it is sane (see ``HTTPRequest/acceptableRequestID(_:)``), else 32
    /// lowercase hex characters.
    public var id: String
    /// When the request line arrived (set by the server; a request built elsewhere takes the time it was
    /// built): deadlines for the request's work are measured from here.
    public var arrived: ContinuousClock.Instant = .now
    /// What the server's header check found before the body was read (``HeaderVerdict/proceed(maxBodyBytes:note:)``);
    /// nil for a request built elsewhere, whose handler finds it from the request itself.
    public var headerNote: (any Sendable)?

    /// Builds a request from its raw request target (origin-form `"/path?query"` or absolute-form
    /// `"http://host/path?query"`, RFC 9112 §3.2), parsed by Foundation's `URLComponents`.
    ///
    /// - Parameters:
    ///   - clientAddress: the client's address; `nil` takes `remoteAddress`.
    ///   - id: the request id; `nil` takes the `X-Request-Id` header if sane, else a random one.
    /// - Throws: ``HTTPError`` 400 `invalid_target` when the target is not a parsable path; 400
    ///   `invalid_query` when the query names a parameter twice or is not UTF-8 once decoded.
    public init(
        method: String,
        target: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(),
        remoteAddress: String = "",
        clientAddress: String? = nil,
        id: String? = nil
    ) throws {
        let parsed = try Self.parseTarget(target)
        self.method = method
        self.path = parsed.path
        self.pathSegments = parsed.segments
        self.query = parsed.query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.clientAddress = clientAddress ?? remoteAddress
        self.id = id ?? Self.acceptableRequestID(headers["x-request-id"]) ?? Self.makeRequestID()
    }

    /// The refusal of a target holding a byte that is not printable ASCII, or a space.
    static let unprintableTarget = HTTPError.badRequest(
        code: "invalid_target",
        message: "The request target must be printable ASCII without spaces (percent-encode the rest)"
    )

    /// A request target's path (its segments joined), its segments (percent-decoded) and its query.
    /// - Throws: ``HTTPError`` 400 `invalid_target` when the target is not a parsable path; 400
    ///   `invalid_query` when the query names a parameter twice or is not UTF-8 once decoded.
    public static func parseTarget(
        _ target: String
    ) throws(HTTPError) -> (path: String, segments: [String], query: [String: String]) {
        // RFC 9112 §3.2, RFC 3986 §2: the request target is one token of printable ASCII, anything else
        // percent-encoded. A byte past ASCII is refused whether or not it is UTF-8: libmicrohttpd's target
        // arrives as a C string, read with invalid bytes replaced, so raw bytes would otherwise name the same
        // path as their replacement's escape.
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { throw unprintableTarget }
        // URLComponents would quietly read a stray `%` as `%25`; RFC 3986 §2.1 allows `%` only before two hex
        // digits.
        guard Self.hasValidPercentEscapes(target) else {
            throw HTTPError.badRequest(
                code: "invalid_target",
                message: "The request target has a '%' not followed by two hex digits"
            )
        }
        let components: URLComponents?
        if target.hasPrefix("/") {
            // Prefixing a scheme and host keeps a path starting with `//` from being read as an authority.
            components = URLComponents(string: "http://h" + target)
        } else {
            components = URLComponents(string: target)
        }
        guard let components, components.scheme != nil, components.percentEncodedPath.hasPrefix("/") else {
            throw HTTPError.badRequest(code: "invalid_target", message: "The request target is not a valid path")
        }
        var segments: [String] = []
        let encodedPath = components.percentEncodedPath.dropFirst()
        if !encodedPath.isEmpty {
            for raw in encodedPath.split(separator: "/", omittingEmptySubsequences: false) {
                guard let decoded = percentDecoded(raw) else {
                    throw HTTPError.badRequest(code: "invalid_target", message: "The request path is not valid UTF-8")
                }
                segments.append(decoded)
            }
        }
        var query: [String: String] = [:]
        // An empty item (`?a=1&`, `?&a=1`) names nothing: query builders leave them.
        for item in components.percentEncodedQueryItems ?? [] where !(item.name.isEmpty && item.value == nil) {
            // Decoded as the path is: Foundation's `queryItems` reads bytes that are not UTF-8 as no value.
            guard let name = percentDecoded(item.name[...]), let value = percentDecoded((item.value ?? "")[...]) else {
                throw HTTPError.badRequest(code: "invalid_query", message: "The query is not valid UTF-8")
            }
            // Which of two values counts would depend on the reader (a proxy, a cache), as for two headers.
            guard query.updateValue(value, forKey: name) == nil else {
                let name = LogText.clipped(name, maxBytes: 64)
                throw HTTPError.badRequest(code: "invalid_query", message: "The query names '\(name)' more than once")
            }
        }
        return ("/" + segments.joined(separator: "/"), segments, query)
    }

    /// `candidate` if it is a sane request id to echo and log: 1...128 characters from `A-Z a-z 0-9 - _ . :`.
    public static func acceptableRequestID(_ candidate: String?) -> String? {
        guard let candidate, (1...128).contains(candidate.utf8.count) else { return nil }
        let ok = candidate.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: ":"):
                true
            default: false
            }
        }
        return ok ? candidate : nil
    }

    /// A fresh request id: 32 lowercase hex characters (a random UUID without dashes).
    public static func makeRequestID() -> String {
        UUID().lowercasedString.replacingOccurrences(of: "-", with: "")
    }
}

extension HTTPRequest {
    /// Whether every `%` in `target` starts a percent-encoded octet (`pct-encoded`, RFC 3986 §2.1).
    static func hasValidPercentEscapes(_ target: String) -> Bool {
        let bytes = Array(target.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, bytes[index + 1].isASCIIHexDigit, bytes[index + 2].isASCIIHexDigit
                else {
                    return false
                }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }
}

/// `encoded` with its percent-escapes decoded by libmicrohttpd (the target's `%` were checked to be followed
/// by two hex digits), nil when the bytes are not UTF-8. Every character is kept: Foundation's
/// `removingPercentEncoding` drops a leading U+FEFF, so `%EF%BB%BFalice` would name `alice`.
func percentDecoded(_ encoded: Substring) -> String? {
    var bytes = Array(encoded.utf8) + [0]
    let count = bytes.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { MHD_http_unescape($0) }
    }
    return String(validating: bytes[..<count], as: UTF8.self)
}
