/// What a route decides from a request's method, path, headers and client alone, before any body byte is read: go
/// on (with the route's own body limit, or the server's), or refuse at once (the connection then closes).
public enum HeaderVerdict: Sendable {
    /// Read the body, of at most `maxBodyBytes` (nil: ``HTTPServerConfiguration/maxBodyBytes``); the request
    /// then carries `note` (``HTTPRequest/headerNote``): what the check found (a route, a caller), so that the
    /// handler does not find it again.
    case proceed(maxBodyBytes: Int?, note: (any Sendable)? = nil)
    /// Answer with this error without reading the body.
    case refuse(HTTPError)
    /// Decide by the verdict `settle` answers, a check that waits (a user credential asked of the app's
    /// JWKS or auth webhook), before any body byte is read: meanwhile the connection is suspended and the
    /// body stays unread, so a request no check passed holds no body. A `settle` verdict is not settled
    /// again.
    case settle(@Sendable () async -> HeaderVerdict)

    /// `check`'s verdict, or the refusal it throws: a check written as a function that reads a caller.
    public static func checking(_ check: () throws(HTTPError) -> HeaderVerdict) -> HeaderVerdict {
        do { return try check() } catch { return .refuse(error) }
    }

    /// A check of a request's method, request target (as sent: ``HTTPRequest/parseTarget(_:)`` reads it),
    /// headers and client address (``HTTPRequest``'s `clientAddress`); called on libmicrohttpd's thread, so it
    /// must be quick and never block.
    public typealias Check =
        @Sendable (_ method: String, _ target: String, _ headers: HTTPHeaders, _ client: String) -> HeaderVerdict
}
