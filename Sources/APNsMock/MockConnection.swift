import Foundation
import MockHTTP2
import RelayCore
import RelayCrypto

/// What the mock APNs does with one connection: Apple's validation and provider-token checks, the stream
/// grant after a valid token, the script's device answers and connection faults, and the record.
///
/// Not `Sendable`: created and used only on the event-loop thread, owned by its ``H2Connection``.
final class MockConnection: ConnectionHandler {
    private unowned let connection: H2Connection
    private let core: MockCore
    private let recorder: RecordFileWriter?
    private var requestCount = 0
    /// The `"next"` rule this connection took when accepted.
    private let nextRule: MockScript.ConnectionRule?
    private var faults = MockCore.ConnectionFaults()
    private var faultsVersion = -1
    /// Request ordinals in fault rules count from here: the request count when the faults took effect.
    private var faultsBaseline = 0
    private var tokenCheck = ProviderTokenCheck()
    private var streamsGranted = true
    private var grantedStreamLimit = 0
    /// The last valid body with the push type and priority it was valid for: an identical request's body is
    /// not parsed again.
    private var lastValidBody: (bytes: [UInt8], kind: RequestValidator.Kind?) = ([], nil)
    private var uuids = FastUUID()
    // Copied from the configuration once: reading the struct through the core per request retains its fields.
    private let authentication: MockAPNsConfiguration.Authentication
    private let providerKeys: [String: (teamId: String, key: ES256Key)]
    private let allowedTopics: Set<String>?
    private let timeSource: any TimeSource
    private let sandbox: Bool
    private let recordInMemory: Bool
    private let onAccepted: (@Sendable (RecordedRequest) -> Void)?

    init(connection: H2Connection, core: MockCore, recorder: RecordFileWriter?) {
        self.connection = connection
        self.core = core
        self.recorder = recorder
        nextRule = core.acceptConnection()
        let configuration = core.configuration
        authentication = configuration.authentication
        providerKeys = configuration.providerKeys
        allowedTopics = configuration.allowedTopics
        timeSource = configuration.timeSource
        sandbox = configuration.environment == .sandbox
        recordInMemory = configuration.recordInMemory
        onAccepted = configuration.onAccepted
    }

    private var id: Int { connection.id }
    private var certificateAuthenticated: Bool { connection.peerCertificateVerified }

    func sessionStarted(_ connection: H2Connection) {
        let tokenAuth = authentication == .providerToken && !certificateAuthenticated
        grantedStreamLimit = core.configuration.maxConcurrentStreams
        streamsGranted = !tokenAuth
        (faults, faultsVersion) = core.faults(connectionId: id, nextRule: nextRule)
        if let limit = faults.streamLimit, (limit.afterRequests ?? 0) <= 0 { grantedStreamLimit = limit.value }
        connection.submitSettings(maxConcurrentStreams: tokenAuth ? 1 : grantedStreamLimit)
        if let goAway = faults.goAway, goAway.afterRequests <= 0 { sendGoAway(goAway, defaultLastStreamId: 0) }
    }

    func woken(_ connection: H2Connection) { refreshFaultsIfScriptChanged() }

    /// Re-reads the faults after a script change; rules with `afterRequests` 0 act at once, other ordinals
    /// count from now. Called for a request about to be answered, `before` is its stream id: a GOAWAY sent
    /// now then leaves that stream (and later ones) unprocessed.
    private func refreshFaultsIfScriptChanged(before streamId: Int32? = nil) {
        guard core.scriptVersion.load(ordering: .sequentiallyConsistent) != faultsVersion else { return }
        (faults, faultsVersion) = core.faults(connectionId: id, nextRule: nextRule)
        faultsBaseline = requestCount
        if let limit = faults.streamLimit, (limit.afterRequests ?? 0) <= 0, limit.value != grantedStreamLimit {
            grantedStreamLimit = limit.value
            if streamsGranted { connection.submitSettings(maxConcurrentStreams: limit.value) }
        }
        if let goAway = faults.goAway, goAway.afterRequests <= 0 {
            let processed = connection.lastProcessedStreamId
            sendGoAway(goAway, defaultLastStreamId: streamId.map { min(processed, max(0, $0 - 2)) } ?? processed)
        }
    }

    func requestComplete(_ stream: RequestStream, on connection: H2Connection) {
        let streamId = stream.id
        // A script change not yet seen acts before this request: a GOAWAY it adds does not cover it.
        refreshFaultsIfScriptChanged(before: streamId)
        if connection.refuseIfAboveGoAway(stream) { return }
        requestCount += 1
        let ordinal = requestCount - faultsBaseline
        if faults.refuse.contains(ordinal) {
            connection.refuse(stream)
            afterRequest(ordinal, streamId: streamId)
            return
        }
        var failure: RequestValidator.Failure?
        var token = ""
        switch RequestValidator.checkRoute(stream.headers) {
        case .failure(let routeFailure): failure = routeFailure
        case .success(let hex): token = hex
        }
        var tokenAuthenticated = false
        if failure == nil, authentication == .providerToken, !certificateAuthenticated {
            let authorization = stream.headers.first { $0.name == "authorization" }?.value
            if let reason = tokenCheck.check(
                authorization: authorization,
                keys: providerKeys,
                time: timeSource
            ) {
                failure = .init(status: reason == .tooManyProviderTokenUpdates ? 429 : 403, reason: reason)
            } else {
                tokenAuthenticated = true
            }
        }
        var kind = RequestValidator.Kind(pushType: .alert, priority: .immediate)
        if failure == nil {
            switch RequestValidator.checkHeaders(
                stream.headers,
                topicRequired: !certificateAuthenticated,
                allowedTopics: allowedTopics
            ) {
            case .failure(let headerFailure): failure = headerFailure
            case .success(let read): kind = read
            }
        }
        if failure == nil {
            if stream.bodyBytes > 0, stream.bodyBytes <= kind.pushType.maxPayloadBytes, kind == lastValidBody.kind,
                stream.body == lastValidBody.bytes
            {
                // Same bytes, push type and priority as the last valid request on this connection: known valid.
            } else if let bodyFailure = RequestValidator.checkBody(
                stream.body,
                totalBytes: stream.bodyBytes,
                kind: kind
            ) {
                failure = bodyFailure
            } else {
                lastValidBody = (stream.body, kind)
            }
        }
        if let failure {
            answer(stream, status: failure.status, reason: failure.reason.description, timestamp: nil)
            afterRequest(ordinal, streamId: streamId)
            return
        }
        if tokenAuthenticated && !streamsGranted {
            streamsGranted = true
            connection.submitSettings(maxConcurrentStreams: grantedStreamLimit)
        }
        if let scripted = core.deviceAnswer(token: token) {
            let status = scripted.status ?? 200
            let reason = status == 200 ? nil : (scripted.reason ?? "InternalServerError")
            if scripted.neverAnswer {
                stream.answered = true
            } else if scripted.delayMs > 0 {
                connection.schedule(after: .milliseconds(scripted.delayMs)) { [weak self] connection in
                    guard let self, let stream = connection.stream(streamId), !stream.answered else { return }
                    answer(stream, status: status, reason: reason, timestamp: scripted.timestamp)
                }
            } else {
                answer(stream, status: status, reason: reason, timestamp: scripted.timestamp)
            }
        } else {
            answer(stream, status: 200, reason: nil, timestamp: nil)
        }
        afterRequest(ordinal, streamId: streamId)
    }

    private func afterRequest(_ ordinal: Int, streamId: Int32) {
        if let goAway = faults.goAway, goAway.afterRequests == ordinal {
            sendGoAway(goAway, defaultLastStreamId: streamId)
        }
        if let limit = faults.streamLimit, let after = limit.afterRequests, after > 0, after == ordinal {
            connection.submitSettings(maxConcurrentStreams: limit.value)
        }
        if faults.dropAfterRequests == ordinal { connection.dropWhenFlushedOut() }
    }

    private struct ErrorBody: Encodable {
        var reason: String
        var timestamp: Int64?
    }

    /// Submits the answer (Apple, "Handling notification responses from APNs"): `apns-id` always (echoed or
    /// a new lowercase UUID), `apns-unique-id` on sandbox 200s, and `{"reason":..., "timestamp": ms}` bodies.
    private func answer(_ stream: RequestStream, status: Int, reason: String?, timestamp: Int64?) {
        let apnsId = stream.headers.first { $0.name == "apns-id" }?.value ?? uuids.string()
        var headers: [(String, String)] = [("apns-id", apnsId)]
        var body: [UInt8] = []
        if status == 200 {
            if sandbox {
                headers.append(("apns-unique-id", uuids.string()))
            }
        } else {
            var timestamp = timestamp
            if status == 410 && timestamp == nil {
                timestamp = Int64((timeSource.now.timeIntervalSince1970 * 1000).rounded())
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = Array((try? encoder.encode(ErrorBody(reason: reason ?? "", timestamp: timestamp))) ?? Data())
            headers.append(("content-type", "application/json"))
        }
        connection.respond(stream, status: status, headers: headers, body: body)

        let record: RecordedRequest?
        if recordInMemory || recorder != nil || (status == 200 && onAccepted != nil) {
            record = RecordedRequest(
                connectionId: id,
                streamId: Int(stream.id),
                openStreams: connection.openStreamCount,
                headers: stream.headers,
                body: Data(stream.body),
                status: status,
                reason: reason,
                apnsId: apnsId,
                time: timeSource.now
            )
        } else {
            record = nil
        }
        if let record { recorder?.write(record) }
        core.log.record(record)
        if status == 200, let record, let onAccepted { onAccepted(record) }
    }

    private func sendGoAway(_ goAway: MockScript.ConnectionRule.GoAway, defaultLastStreamId: Int32) {
        let last = goAway.lastStreamId.map { Int32(clamping: $0) } ?? defaultLastStreamId
        var debug: [UInt8] = []
        if let reason = goAway.reason, let data = try? JSONEncoder().encode(["reason": reason]) {
            debug = Array(data)
        }
        connection.sendGoAway(lastStreamId: last, errorCode: goAway.errorCode ?? 0, debug: debug)
    }
}
