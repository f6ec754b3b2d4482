import Foundation
import MockHTTP2
import RelayCore

/// What the mock FCM does with one connection: `POST /token` (``TokenEndpoint``) and
/// `POST /v1/projects/{projectId}/messages:send` (the bearer, ``MessageValidator``, the script), anything
/// else 404.
///
/// Not `Sendable`: created and used only on the event-loop thread, owned by its ``H2Connection``.
final class MockFCMConnection: ConnectionHandler {
    private unowned let connection: H2Connection
    private let core: MockFCMCore
    private let recorder: RecordFileWriter?
    private var uuids = FastUUID()

    init(connection: H2Connection, core: MockFCMCore, recorder: RecordFileWriter?) {
        self.connection = connection
        self.core = core
        self.recorder = recorder
        core.acceptConnection()
    }

    func sessionStarted(_ connection: H2Connection) {
        connection.submitSettings(maxConcurrentStreams: core.configuration.maxConcurrentStreams)
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

    func requestComplete(_ stream: RequestStream, on connection: H2Connection) {
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
            respond(stream, answer)
        } else if let projectId = Self.projectId(route.path), route.method == "POST" {
            send(stream, projectId: projectId, authorization: route.authorization)
        } else {
            respond(stream, .googleError(404, "NOT_FOUND", "The requested URL \(route.path) was not found."))
        }
    }

    /// The `{projectId}` of a send path; nil for any other path.
    private static func projectId(_ path: String) -> String? {
        guard path.hasPrefix(sendPrefix), path.hasSuffix(sendSuffix) else { return nil }
        let id = path.dropFirst(sendPrefix.count).dropLast(sendSuffix.count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }

    private func send(_ stream: RequestStream, projectId: String, authorization: String?) {
        var token: String?
        let answer = check(stream, projectId: projectId, authorization: authorization, token: &token)
        guard let answer else { return }  // scripted: answered later or never
        respond(stream, answer, record: (projectId, token))
    }

    /// The answer to a send, or nil when the script delays it or never answers.
    private func check(
        _ stream: RequestStream,
        projectId: String,
        authorization: String?,
        token: inout String?
    ) -> MockAnswer? {
        guard let authorization, authorization.prefix(7).lowercased() == "bearer " else {
            return .unauthenticated(
                "Request is missing required authentication credential. Expected OAuth 2 access token."
            )
        }
        guard let account = core.account(forToken: authorization.dropFirst(7)) else {
            return .unauthenticated(
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or "
                    + "other valid authentication credential."
            )
        }
        guard account.projectId == projectId else {
            return .googleError(
                403,
                "PERMISSION_DENIED",
                "Permission 'cloudmessaging.messages.create' denied on resource "
                    + "'//cloudresourcemanager.googleapis.com/projects/\(projectId)' (or it may not exist)."
            )
        }
        switch MessageValidator.check(body: stream.body, totalBytes: stream.bodyBytes) {
        case .failure(let refused): return refused.answer
        case .success(let valid): token = valid
        }
        guard let rule = core.deviceRule(token: token!) else { return sent(projectId) }
        let answer = rule.error.map { MockAnswer.scripted(rule, error: $0) } ?? sent(projectId)
        if rule.neverAnswer == true {
            stream.answered = true
            return nil
        }
        if let delay = rule.delayMs, delay > 0 {
            let streamId = stream.id, record = (projectId, token)
            connection.schedule(after: .milliseconds(delay)) { [weak self] connection in
                guard let self, let stream = connection.stream(streamId), !stream.answered else { return }
                respond(stream, answer, record: record)
            }
            return nil
        }
        return answer
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

    /// Submits the answer; a send (with `record`: its project and token) is also recorded.
    private func respond(_ stream: RequestStream, _ answer: MockAnswer, record: (String, String?)? = nil) {
        connection.respond(stream, status: answer.status, headers: answer.headers, body: answer.body)
        guard let (projectId, token) = record else { return }
        let onAccepted = answer.status == 200 ? core.configuration.onAccepted : nil
        guard core.configuration.recordInMemory || recorder != nil || onAccepted != nil else {
            core.log.record(nil)
            return
        }
        let recorded = RecordedMessage(
            connectionId: connection.id,
            streamId: Int(stream.id),
            projectId: projectId,
            token: token,
            body: String(decoding: stream.body, as: UTF8.self),
            status: answer.status,
            errorCode: answer.status == 200 ? nil : answer.errorCode,
            name: answer.messageName,
            time: core.configuration.timeSource.now
        )
        recorder?.write(recorded)
        core.log.record(recorded)
        onAccepted?(recorded)
    }
}
