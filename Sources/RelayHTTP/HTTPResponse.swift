import Foundation

/// What a handler answers: status, header fields and body bytes.
///
/// The server adds `X-Request-Id` and `Content-Length` itself; `Content-Length` and `Transfer-Encoding`
/// given here are ignored (libmicrohttpd frames the body).
public struct HTTPResponse: Sendable {
    /// The status code, 100...599.
    public var status: Int
    /// Header fields as `(name, value)`, sent in this order.
    public var headers: [(String, String)]
    /// The body bytes.
    public var body: Data
    /// The route pattern that produced this response (e.g. `"/v1/devices/{token}"`), set by ``Router``
    /// for access logs and metrics; never sent. `nil` when no route matched.
    public var route: String?

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (any case), or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// A JSON response (`content-type: application/json`) encoded by `JSONEncoder` with sorted keys and
    /// unescaped slashes.
    ///
    /// - Throws: `EncodingError` when `value` cannot be encoded (e.g. a non-finite Double).
    public static func json(status: Int = 200, _ value: some Encodable) throws -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [("content-type", "application/json")],
            body: try jsonEncoder.encode(value)
        )
    }

    /// 204 No Content, no body.
    public static var noContent: HTTPResponse { HTTPResponse(status: 204) }

    /// A `text/plain; charset=utf-8` response.
    public static func text(status: Int = 200, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    static var jsonEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
