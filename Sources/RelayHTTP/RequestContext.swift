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

    /// The raw request target as sent (`/path?query`), before libmicrohttpd decodes it.
    let target: String
    let connection: OpaquePointer
    let started: ContinuousClock.Instant
    let state = Mutex(State())

    init(target: String, connection: OpaquePointer) {
        self.target = target
        self.connection = connection
        self.started = .now
    }
}
