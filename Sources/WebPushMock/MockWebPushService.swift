import Foundation
import MockHTTP2
import RelayCore

/// The mock Web Push service's part of one connection: `POST /push/<id>` checked by ``PushCheck`` for the
/// subscription `<id>` (404 when unknown), answered 201 with a `Location`, an autopush-like error, or the
/// script's answer, and recorded as a ``RecordedPush``; anything else 404, unrecorded. The generic
/// `MockServer` does the rest.
///
/// Not `Sendable`: created and used only on the event-loop thread, for one connection.
final class MockWebPushService: MockService {
    /// The answer to a push, with what its record names.
    struct Answer {
        var endpointId: String
        var facts = PushCheck.Facts()
        var error: PushError?
        /// The `Location` of an accepted push.
        var location: String?
    }

    typealias Script = MockWebPushScript

    static let threadName = "webpush-mock"
    /// One byte more than a push service takes (RFC 8030 §7.2), so an oversized body is seen as such.
    static let bodyLimit = 4096 + 1
    static let acceptedStatus = 201

    /// The path of a subscription's endpoint before its id.
    static let pushPrefix = "/push/"
    /// The path of a message resource before its id (the `Location` of a 201).
    static let messagePrefix = "/message/"

    private let core: MockWebPushCore
    private var uuids = FastUUID()

    init(core: MockWebPushCore) {
        self.core = core
    }

    func check(_ stream: RequestStream, on connection: H2Connection) -> MockVerdict<Answer> {
        var headers: [String: String] = [:]
        for (name, value) in stream.headers where headers[name] == nil { headers[name] = value }
        let path = headers[":path"].map { String($0.prefix { $0 != "?" }) } ?? ""
        guard headers[":method"] == "POST", path.hasPrefix(Self.pushPrefix) else {
            return .unrecorded(PushError.notFound("no such resource: \(path.prefix(64))").reply)
        }
        let id = String(path.dropFirst(Self.pushPrefix.count))
        var answer = Answer(endpointId: String(id.prefix(64)))
        guard MockSubscription.isWellFormed(id: id), let subscription = core.subscriptions.subscription(id: id) else {
            answer.error = .notFound("Request did not validate: no subscription for this endpoint")
            return .refused(answer)
        }
        let (facts, error) = PushCheck.check(
            headers: headers,
            body: stream.body,
            totalBytes: stream.bodyBytes,
            subscription: subscription,
            now: core.configuration.timeSource.now
        )
        answer.facts = facts
        if let error {
            answer.error = error
            return .refused(answer)
        }
        answer.location = subscription.baseURL + Self.messagePrefix + uuids.string()
        return .valid(token: id, accepted: answer)
    }

    func answer(_ accepted: Answer, scriptedBy rule: MockWebPushScript.EndpointRule) -> Answer {
        guard let status = rule.status else { return accepted }
        var scripted = accepted
        scripted.location = nil
        scripted.error = .scripted(status: status, message: rule.message, retryAfter: rule.retryAfter)
        return scripted
    }

    func reply(to stream: RequestStream, with answer: Answer) -> MockReply {
        if let error = answer.error { return error.reply }
        var headers: [(String, String)] = []
        if let location = answer.location { headers.append(("location", location)) }
        if let ttl = answer.facts.ttl { headers.append(("ttl", String(ttl))) }
        return MockReply(status: Self.acceptedStatus, headers: headers)
    }

    func record(
        of stream: RequestStream,
        answer: Answer,
        reply: MockReply,
        on connection: H2Connection
    )
        -> RecordedPush
    {
        RecordedPush(
            connectionId: connection.id,
            streamId: Int(stream.id),
            endpointId: answer.endpointId,
            status: reply.status,
            reason: answer.error?.message,
            ttl: answer.facts.ttl,
            urgency: answer.facts.urgency,
            topic: answer.facts.topic,
            vapidSubject: answer.facts.vapid?.claims.sub,
            vapidAudience: answer.facts.vapid?.claims.aud,
            vapidKey: answer.facts.vapidKey,
            payload: answer.facts.payload,
            shape: answer.facts.shape?.rawValue,
            location: answer.location,
            time: core.configuration.timeSource.now
        )
    }
}
