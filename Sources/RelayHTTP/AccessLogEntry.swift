/// One answered request, given to the server's `onResponse` hook for access logs and metrics.
public struct AccessLogEntry: Sendable {
    /// The request id (also sent as `X-Request-Id`).
    public var requestID: String
    /// The request method.
    public var method: String
    /// The decoded path. It may carry a device token: log ``route`` instead where that matters.
    public var path: String
    /// The matched route pattern, e.g. `"/v1/devices/{token}"`; `nil` when no route matched or the server
    /// answered by itself (501 for a method not served, 400 on malformed headers or a bad target, 413, 503
    /// while shutting down).
    public var route: String?
    /// The status sent.
    public var status: Int
    /// Milliseconds from the request line to queueing the response.
    public var durationMilliseconds: Double
    /// Request body bytes received (at most the limit).
    public var requestBytes: Int
    /// Response body bytes.
    public var responseBytes: Int
    /// The peer's numeric IP address.
    public var remoteAddress: String
    /// The client's numeric IP address: ``remoteAddress``, or what `X-Forwarded-For` says when the peer is a
    /// trusted proxy (``HTTPRequest/clientAddress``).
    public var clientAddress: String
}
