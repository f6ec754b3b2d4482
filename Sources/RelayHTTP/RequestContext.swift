import CMicroHTTPD
import Foundation
import Synchronization

/// The state of one request, shared by libmicrohttpd's polling thread and the handler task.
///
/// `@unchecked Sendable`: `connection` is only used on libmicrohttpd's thread (access handler) or, for
/// `MHD_resume_connection`, under `state`'s lock while the phase is `.suspended`, when libmicrohttpd keeps
/// the connection alive (a suspended connection is never closed; ``HTTPServer`` resumes every suspended
/// connection before it stops the daemon). Everything mutable is inside the `Mutex`.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        /// The request line arrived; the access handler has not run yet.
        case start
        /// Headers seen; the connection is suspended, its body unread, until the header check's
        /// ``HeaderVerdict/settle(_:)`` answers.
        case checking
        /// The header check answered and the connection was resumed; apply this verdict on the next call.
        case checked(HeaderVerdict)
        /// Headers seen (and their check passed); body bytes may follow.
        case receiving
        /// The connection is suspended while the handler runs.
        case suspended
        /// The handler answered and the connection was resumed; queue this response on the next call.
        case ready(HTTPResponse)
        /// A response was queued (or the request ended).
        case done
    }

    struct State {
        var phase: Phase = .start
        var method = ""
        var headers = HTTPHeaders()
        var body = Data()
        var receivedBytes = 0
        var tooLarge = false
        /// Where the body must start in libmicrohttpd's read buffer (``ReceivedHeaders/bodyStart``).
        var bodyStart: UInt?
        /// The body's first bytes did not start there: a line the header section hid (400, closed).
        var misframed = false
        /// The request's body limit, as its route's header check set it (nil: the server's).
        var bodyLimit: Int?
        /// What the route's header check found (``HeaderVerdict/proceed(maxBodyBytes:note:)``).
        var headerNote: (any Sendable)?
        var remoteAddress = ""
        var clientAddress = ""
        var requestID = ""
        var path = ""
    }

    /// The raw request target as sent (`/path?query`), before libmicrohttpd decodes it, up to its first NUL
    /// byte (it arrives as a C string).
    let target: String
    /// The addresses of ``target``'s first byte and of the NUL that ended its C string in libmicrohttpd's read
    /// buffer; compared (``cut(method:version:)``), never read.
    private let targetStart: UInt
    private let targetEnd: UInt
    let connection: OpaquePointer
    let started: ContinuousClock.Instant
    let state = Mutex(State())

    /// - Parameter target: the target's C string as libmicrohttpd hands it to its URI log callback, before it
    ///   splits off the query or decodes anything.
    init(target: UnsafePointer<CChar>, connection: OpaquePointer) {
        let length = strlen(target)
        self.target = String(decoding: UnsafeRawBufferPointer(start: target, count: length), as: UTF8.self)
        self.targetStart = UInt(bitPattern: target)
        self.targetEnd = UInt(bitPattern: target + length)
        self.connection = connection
        self.started = .now
    }

    /// A part of the request line that a NUL byte of the request cut short.
    enum Cut: Sendable {
        /// `POST\0X /a HTTP/1.1` would be served as `POST`.
        case method
        /// `GET /a\0/../b HTTP/1.1` would be served as `/a`; also a request line whose version is not in it.
        case target
    }

    /// What a NUL byte cut short of the request line whose `method` and `version` (C strings) the access
    /// handler got, if anything. libmicrohttpd (0.9.75) parses the line in its read buffer: it writes a NUL
    /// over the space after the method and over the one before the version, hands the URI log callback the
    /// target starting just past the first and the access handler `version` just past the second. A method
    /// or target that ends anywhere else was cut by a NUL of the request (or, for the method, followed by more
    /// than one space, which RFC 9112 §3 does not allow either).
    func cut(method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?) -> Cut? {
        guard UInt(bitPattern: method + strlen(method)) + 1 == targetStart else { return .method }
        guard let version, UInt(bitPattern: version) == targetEnd + 1 else { return .target }
        return nil
    }
}
