/// One push service's part of a mock: how a request is checked, what it is answered, and what is recorded of
/// it. The generic ``MockServer`` does the rest for every service: listening, TLS or h2c, HTTP/2 sessions and
/// the connection faults of the script, the stream grant after authentication, the script's per-token
/// answers with their delays and silences, the bounded record and the waits on it, shutdown.
///
/// A third service needs only its own parts: Web Push, for instance, would check a POST to any path for an
/// encrypted body and a VAPID header (this conformance's ``check(_:on:)``, its validator), answer 201 or its
/// errors (``reply(to:with:)``), record the subscription and the decrypted message (its ``Record``), and bring
/// its script rules (``MockScripted``), its configuration (``MockServerSettings``) and a ``MockServer``
/// subclass of a few lines for its public name. MockHTTP2Tests builds such a service.
///
/// One instance per connection, made and used only on the event-loop thread: it keeps per-connection state
/// (APNs' provider token) without locks.
package protocol MockService: AnyObject, SendableMetatype {
    associatedtype Script: MockScripted
    /// The service's answer before it is rendered as HTTP/2 (e.g. a status and a reason).
    associatedtype Answer
    /// What is recorded of an answered request, in memory and as one JSON line of the record file.
    associatedtype Record: Sendable & Encodable

    /// The event-loop thread's name, as `top -H` shows it (e.g. `apns-mock`).
    static var threadName: String { get }

    /// Request body bytes kept per stream (more are only counted): one more than the service accepts, so an
    /// oversized body is seen as such.
    static var bodyLimit: Int { get }

    /// The status of an accepted request: ``MockServerSettings/onAccepted`` hears of answers with it.
    static var acceptedStatus: Int { get }

    /// Whether the connection may open the configured number of streams from the start; when not (APNs' token
    /// authentication), it is granted 1 until a request is valid. Called once the session starts.
    func grantsStreamsAtStart(on connection: H2Connection) -> Bool

    /// Checks a complete request the service's way.
    func check(_ stream: RequestStream, on connection: H2Connection) -> MockVerdict<Answer>

    /// The answer a script rule gives to a valid request instead of `accepted`.
    func answer(_ accepted: Answer, scriptedBy rule: Script.Rule) -> Answer

    /// The answer as HTTP/2: status, headers and body.
    func reply(to stream: RequestStream, with answer: Answer) -> MockReply

    /// What is recorded of the request, answered `reply`.
    func record(of stream: RequestStream, answer: Answer, reply: MockReply, on connection: H2Connection) -> Record
}

extension MockService {
    package static var acceptedStatus: Int { 200 }

    package func grantsStreamsAtStart(on connection: H2Connection) -> Bool { true }
}

/// What a ``MockService`` makes of a complete request.
package enum MockVerdict<Answer> {
    /// Valid for the device `token`: the script's rule for it (if any) decides, else `accepted` is answered.
    case valid(token: String, accepted: Answer)
    /// Refused by the service's rules: answered and recorded.
    case refused(Answer)
    /// A request outside the service's record (another route, such as FCM's token endpoint, or an unknown
    /// path): answered as is, neither recorded nor counted.
    case unrecorded(MockReply)
}

/// An answer as HTTP/2: the status, headers (lowercase names; besides `:status` and `content-length`), body.
package struct MockReply {
    package var status: Int
    package var headers: [(String, String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header (name lowercase), or nil.
    package func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
}
