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
        /// Headers seen; body bytes may follow.
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
        /// The request's body limit, as its route's header check set it (nil: the server's).
        var bodyLimit: Int?
        var remoteAddress = ""
        var clientAddress = ""
        var requestID = ""
        var path = ""
    }

    /// The raw request target as sent (`/path?query`), before libmicrohttpd decodes it, up to its first NUL
    /// byte (it arrives as a C string).
    let target: String
    /// The address of the NUL that ended ``target``'s C string in libmicrohttpd's read buffer; compared
    /// (``isWhole(version:)``), never read.
    private let targetEnd: UInt
    let connection: OpaquePointer
    let started: ContinuousClock.Instant
    let state = Mutex(State())

    /// - Parameter target: the target's C string as libmicrohttpd hands it to its URI log callback, before it
    ///   splits off the query or decodes anything.
    init(target: UnsafePointer<CChar>, connection: OpaquePointer) {
        let length = strlen(target)
        self.target = String(decoding: UnsafeRawBufferPointer(start: target, count: length), as: UTF8.self)
        self.targetEnd = UInt(bitPattern: target + length)
        self.connection = connection
        self.started = .now
    }

    /// Whether ``target`` is the request line's whole target: libmicrohttpd (0.9.75) ends the target's C string
    /// by writing a NUL over the space before the HTTP version and hands the access handler `version` pointing
    /// just past it, so a target that a NUL byte of the request cut short ends elsewhere (`GET /a\0/../b
    /// HTTP/1.1` would be served as `/a`). False, too, when `version` is not in the request line.
    func isWhole(version: UnsafePointer<CChar>?) -> Bool {
        guard let version else { return false }
        return UInt(bitPattern: version) == targetEnd + 1
    }
}
