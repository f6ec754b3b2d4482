import Foundation
import MockHTTP2
import RelayCore

/// The mock FCM's part of one connection: `POST /token` (``TokenEndpoint``, outside the record) and `POST
/// /v1/projects/{projectId}/messages:send` (the bearer, ``MessageValidator``, FCM's answers, the
/// ``RecordedMessage``), anything else 404. The generic `MockServer` does the rest.
///
/// Not `Sendable`: created and used only on the event-loop thread, for one connection.
final class MockFCMService: MockService {
    /// The answer to a send, with what its record names.
    struct Answer {
        var answer: MockAnswer
        var projectId: String
        /// `message.token` of a valid message; nil when the message was refused before it was read.
        var token: String?
    }

    typealias Script = MockFCMScript

    static let threadName = "fcm-mock"
    static let bodyLimit = MessageValidator.bodyLimit

    private let core: MockFCMCore
    private var uuids = FastUUID()

    init(core: MockFCMCore) {
        self.core = core
    }

    /// The parts of a request the routes need.
    private struct Route {
        var method: String?
        var path: String
        var scheme: String
        var authority: String
        var authorization: String?
    }

    private static let sendPrefix = "/v1/projects/"
    private static let sendSuffix = "/messages:send"

    func check(_ stream: RequestStream, on connection: H2Connection) -> MockVerdict<Answer> {
        var route = Route(path: "", scheme: "http", authority: "")
        for (name, value) in stream.headers {
            switch name {
            case ":method": route.method = value
            case ":path": route.path = value
            case ":scheme": route.scheme = value
            case ":authority", "host": route.authority = value
            case "authorization": route.authorization = value
            default: break
            }
        }
        if route.path == MockFCMConfiguration.tokenPath, route.method == "POST" {
            let audience = "\(route.scheme)://\(route.authority)\(route.path)"
            let answer = TokenEndpoint.answer(body: stream.body, audience: audience, core: core) {
                "ya29.mock." + uuids.string() + uuids.string()
            }
            return .unrecorded(answer.reply)
        } else if let projectId = Self.projectId(route.path), route.method == "POST" {
            return checkSend(stream, projectId: projectId, authorization: route.authorization)
        } else {
            return .unrecorded(
                MockAnswer.googleError(404, "NOT_FOUND", "The requested URL \(route.path) was not found.").reply
            )
        }
    }

    /// The `{projectId}` of a send path; nil for any other path.
    private static func projectId(_ path: String) -> String? {
        guard path.hasPrefix(sendPrefix), path.hasSuffix(sendSuffix) else { return nil }
        let id = path.dropFirst(sendPrefix.count).dropLast(sendSuffix.count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    private func checkSend(_ stream: RequestStream, projectId: String, authorization: String?) -> MockVerdict<Answer> {
        func refused(_ answer: MockAnswer) -> MockVerdict<Answer> {
            .refused(Answer(answer: answer, projectId: projectId))
        }
        guard let authorization, authorization.prefix(7).lowercased() == "bearer " else {
            return refused(
                .unauthenticated(
                    "Request is missing required authentication credential. Expected OAuth 2 access token."
                )
            )
        }
        guard let account = core.account(forToken: authorization.dropFirst(7)) else {
            return refused(
                .unauthenticated(
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or "
                        + "other valid authentication credential."
                )
            )
        }
        guard account.projectId == projectId else {
            return refused(
                .googleError(
                    403,
                    "PERMISSION_DENIED",
                    "Permission 'cloudmessaging.messages.create' denied on resource "
                        + "'//cloudresourcemanager.googleapis.com/projects/\(projectId)' (or it may not exist)."
                )
            )
        }
        switch MessageValidator.check(body: stream.body, totalBytes: stream.bodyBytes) {
        case .failure(let refusal): return refused(refusal.answer)
        case .success(let token):
            return .valid(token: token, accepted: Answer(answer: sent(projectId), projectId: projectId, token: token))
        }
    }

    /// 200 with the new message's name, `projects/{projectId}/messages/0:<ms>%<hex>` like FCM's.
    private func sent(_ projectId: String) -> MockAnswer {
        let milliseconds = Int64(core.configuration.timeSource.now.timeIntervalSince1970 * 1000)
        let suffix = uuids.string().replacingOccurrences(of: "-", with: "").prefix(16)
        let name = "projects/\(projectId)/messages/0:\(milliseconds)%\(suffix)"
        var answer = MockAnswer.json(200, ["name": name])
        answer.messageName = name
        return answer
    }

    func answer(_ accepted: Answer, scriptedBy rule: MockFCMScript.DeviceRule) -> Answer {
        guard let error = rule.error else { return accepted }
        var scripted = accepted
        scripted.answer = .scripted(rule, error: error)
        return scripted
    }

    func reply(to stream: RequestStream, with answer: Answer) -> MockReply { answer.answer.reply }

    func record(
        of stream: RequestStream,
        answer: Answer,
        reply: MockReply,
        on connection: H2Connection
    )
        -> RecordedMessage
    {
        RecordedMessage(
            connectionId: connection.id,
            streamId: Int(stream.id),
            projectId: answer.projectId,
            token: answer.token,
            body: String(decoding: stream.body, as: UTF8.self),
            status: reply.status,
            errorCode: reply.status == 200 ? nil : answer.answer.errorCode,
            name: answer.answer.messageName,
            time: core.configuration.timeSource.now
        )
    }
}
