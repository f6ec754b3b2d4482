import Foundation

/// An error a handler throws to answer with a JSON error body:
/// `{"error":{"code":"missing_field","message":"userId is required"}}` and `content-type: application/json`.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The status code, e.g. 400.
    public var status: Int
    /// A stable snake_case code clients can branch on, e.g. `"invalid_device_token"`.
    public var code: String
    /// A human-readable message; never holds a secret or a full device token.
    public var message: String
    /// Extra response header fields, e.g. `("Allow", "GET, POST")`.
    public var headers: [(String, String)]

    public init(status: Int, code: String, message: String, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "HTTPError(\(status) \(code): \(message))" }

    /// The rendered JSON response.
    public var response: HTTPResponse {
        struct Body: Encodable {
            struct Inner: Encodable {
                var code: String
                var message: String
            }
            var error: Inner
        }
        // Two strings always encode.
        let body = (try? HTTPResponse.jsonEncoder.encode(Body(error: .init(code: code, message: message)))) ?? Data()
        return HTTPResponse(status: status, headers: [("content-type", "application/json")] + headers, body: body)
    }

    /// 400 with the given code, e.g. `invalid_json`, `missing_field`, `invalid_field`.
    public static func badRequest(code: String = "bad_request", message: String) -> HTTPError {
        HTTPError(status: 400, code: code, message: message)
    }

    /// 401 `unauthorized` with `WWW-Authenticate: Bearer` (RFC 6750 §3).
    public static func unauthorized(message: String = "Missing or invalid bearer token") -> HTTPError {
        HTTPError(status: 401, code: "unauthorized", message: message, headers: [("WWW-Authenticate", "Bearer")])
    }

    /// 403 `forbidden`.
    public static func forbidden(message: String = "Not allowed") -> HTTPError {
        HTTPError(status: 403, code: "forbidden", message: message)
    }

    /// 404 `not_found`.
    public static func notFound(message: String = "No such resource") -> HTTPError {
        HTTPError(status: 404, code: "not_found", message: message)
    }

    /// 405 `method_not_allowed` with `Allow` listing `allowed` (RFC 9110 §15.5.6).
    public static func methodNotAllowed(allowed: [String]) -> HTTPError {
        HTTPError(
            status: 405,
            code: "method_not_allowed",
            message: "Method not allowed; allowed: \(allowed.joined(separator: ", "))",
            headers: [("Allow", allowed.joined(separator: ", "))]
        )
    }

    /// 409 `conflict`.
    public static func conflict(code: String = "conflict", message: String) -> HTTPError {
        HTTPError(status: 409, code: code, message: message)
    }

    /// 413 `payload_too_large`; `limit` in bytes.
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: "payload_too_large", message: "Request body exceeds \(limit) bytes")
    }

    /// 415 `unsupported_media_type`.
    public static func unsupportedMediaType(message: String = "Content-Type must be application/json") -> HTTPError {
        HTTPError(status: 415, code: "unsupported_media_type", message: message)
    }

    /// 500 `internal_error` with a generic message; log the real cause with the request id instead.
    public static func `internal`() -> HTTPError {
        HTTPError(status: 500, code: "internal_error", message: "Internal server error")
    }

    /// 503 `unavailable` (e.g. while shutting down).
    public static func unavailable(message: String = "Service unavailable") -> HTTPError {
        HTTPError(status: 503, code: "unavailable", message: message)
    }
}
