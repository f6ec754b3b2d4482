import APNsCore
import Foundation
import MockHTTP2
import RelayCore
import RelayCrypto

/// The mock APNs' part of one connection: Apple's validation and provider-token checks, Apple's answers, and
/// the ``RecordedRequest`` of each. The generic `MockServer` does the rest.
///
/// Not `Sendable`: created and used only on the event-loop thread, for one connection.
final class MockAPNsService: MockService {
    /// A status with Apple's reason (nil for 200) and, for 410, the `timestamp` in MILLISECONDS.
    struct Answer {
        var status: Int
        var reason: String?
        var timestamp: Int64?
    }

    typealias Script = MockScript

    static let threadName = "apns-mock"
    static let bodyLimit = RequestValidator.maxBufferedBody

    private var tokenCheck = ProviderTokenCheck()
    /// The last valid body with the push type and priority it was valid for: an identical request's body is
    /// not parsed again.
    private var lastValidBody: (bytes: [UInt8], kind: RequestValidator.Kind?) = ([], nil)
    private var uuids = FastUUID()
    // Copied from the configuration once: reading the struct per request retains its fields.
    private let authentication: MockAPNsConfiguration.Authentication
    private let providerKeys: [String: (teamId: String, key: ES256Key)]
    private let allowedTopics: Set<String>?
    private let timeSource: any TimeSource
    private let sandbox: Bool

    init(configuration: MockAPNsConfiguration) {
        authentication = configuration.authentication
        providerKeys = configuration.providerKeys
        allowedTopics = configuration.allowedTopics
        timeSource = configuration.timeSource
        sandbox = configuration.environment == .sandbox
    }

    /// With token authentication, one stream until a request's provider token is valid (a verified client
    /// certificate authenticates the connection at once).
    func grantsStreamsAtStart(on connection: H2Connection) -> Bool {
        authentication == .disabled || connection.peerCertificateVerified
    }

    func check(_ stream: RequestStream, on connection: H2Connection) -> MockVerdict<Answer> {
        let certificateAuthenticated = connection.peerCertificateVerified
        let token: String
        switch RequestValidator.checkRoute(stream.headers) {
        case .failure(let failure): return .refused(Answer(failure))
        case .success(let hex): token = hex
        }
        if authentication == .providerToken, !certificateAuthenticated {
            let authorization = stream.headers.first { $0.name == "authorization" }?.value
            if let reason = tokenCheck.check(authorization: authorization, keys: providerKeys, time: timeSource) {
                return .refused(Answer(status: reason == .tooManyProviderTokenUpdates ? 429 : 403, reason: reason))
            }
        }
        let kind: RequestValidator.Kind
        switch RequestValidator.checkHeaders(
            stream.headers,
            topicRequired: !certificateAuthenticated,
            allowedTopics: allowedTopics
        ) {
        case .failure(let failure): return .refused(Answer(failure))
        case .success(let read): kind = read
        }
        if stream.bodyBytes > 0, stream.bodyBytes <= kind.pushType.maxPayloadBytes, kind == lastValidBody.kind,
            stream.body == lastValidBody.bytes
        {
            // Same bytes, push type and priority as the last valid request on this connection: known valid.
        } else if let failure = RequestValidator.checkBody(stream.body, totalBytes: stream.bodyBytes, kind: kind) {
            return .refused(Answer(failure))
        } else {
            lastValidBody = (stream.body, kind)
        }
        return .valid(token: token, accepted: Answer(status: 200))
    }

    func answer(_ accepted: Answer, scriptedBy rule: MockScript.DeviceRule) -> Answer {
        let status = rule.status ?? 200
        return Answer(
            status: status,
            reason: status == 200 ? nil : (rule.reason ?? "InternalServerError"),
            timestamp: rule.timestamp
        )
    }

    private struct ErrorBody: Encodable {
        var reason: String
        var timestamp: Int64?
    }

    /// Apple's answer ("Handling notification responses from APNs"): `apns-id` always (echoed or a new
    /// lowercase UUID), `apns-unique-id` on sandbox 200s, and `{"reason":..., "timestamp": ms}` bodies.
    func reply(to stream: RequestStream, with answer: Answer) -> MockReply {
        let apnsId = stream.headers.first { $0.name == "apns-id" }?.value ?? uuids.string()
        var reply = MockReply(status: answer.status, headers: [("apns-id", apnsId)])
        if answer.status == 200 {
            if sandbox { reply.headers.append(("apns-unique-id", uuids.string())) }
            return reply
        }
        var timestamp = answer.timestamp
        if answer.status == 410 && timestamp == nil {
            timestamp = Int64((timeSource.now.timeIntervalSince1970 * 1000).rounded())
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        reply.body = Array(
            (try? encoder.encode(ErrorBody(reason: answer.reason ?? "", timestamp: timestamp))) ?? Data()
        )
        reply.headers.append(("content-type", "application/json"))
        return reply
    }

    func record(
        of stream: RequestStream,
        answer: Answer,
        reply: MockReply,
        on connection: H2Connection
    )
        -> RecordedRequest
    {
        RecordedRequest(
            connectionId: connection.id,
            streamId: Int(stream.id),
            openStreams: connection.openStreamCount,
            headers: stream.headers,
            body: Data(stream.body),
            status: answer.status,
            reason: answer.reason,
            apnsId: reply.header("apns-id"),
            time: timeSource.now
        )
    }
}

extension MockAPNsService.Answer {
    init(status: Int, reason: APNsReason) {
        self.init(status: status, reason: reason.description)
    }

    init(_ failure: RequestValidator.Failure) {
        self.init(status: failure.status, reason: failure.reason)
    }
}
