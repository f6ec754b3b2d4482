import Foundation

/// What a mock does with one connection, for every service alike: the script's connection faults, the stream
/// grant, the script's per-token answers with their delays and silences, and the record; its ``MockService``
/// checks, answers and records each request.
///
/// Not `Sendable`: created and used only on the event-loop thread, owned by its ``H2Connection``.
final class MockConnection<Service: MockService>: ConnectionHandler {
    private unowned let connection: H2Connection
    private let service: Service
    private let state: MockState<Service.Script>
    private let recording: MockRecording<Service.Record>
    private var requestCount = 0
    /// The `"next"` rule this connection took when accepted.
    private let nextRule: MockConnectionRule?
    private var faults = ConnectionFaults()
    /// Whether the script has device rules: without, a valid request takes no lock to find none.
    private var hasDeviceRules = false
    /// The version of the script that `faults` and `hasDeviceRules` come from.
    private var scriptVersion = -1
    /// Request ordinals in fault rules count from here: the request count when the faults took effect.
    private var faultsBaseline = 0
    private var streamsGranted = true
    private var grantedStreamLimit: Int

    init(
        connection: H2Connection,
        service: Service,
        state: MockState<Service.Script>,
        recording: MockRecording<Service.Record>,
        maxConcurrentStreams: Int
    ) {
        self.connection = connection
        self.service = service
        self.state = state
        self.recording = recording
        grantedStreamLimit = maxConcurrentStreams
        let (script, ordinal) = state.acceptConnection()
        nextRule = ConnectionFaults.nextRule(in: script.connections, ordinal: ordinal)
    }

    private var id: Int { connection.id }

    /// The connection-level flow-control window a client is granted: room for the bodies of a thousand
    /// streams (the stream limit APNs grants) at 8 KiB each, above the largest any of the services accepts.
    /// HTTP/2's initial 65,535 bytes would hold a client of FCM-sized requests (about 450 bytes) to under a
    /// hundred in flight, its other requests waiting for the mock's window updates: a limit of the mock's, not
    /// of the service it stands for.
    static var connectionWindow: Int32 { 1000 * 8192 }

    func sessionStarted(_ connection: H2Connection) {
        streamsGranted = service.grantsStreamsAtStart(on: connection)
        readScript()
        if let limit = faults.streamLimit, (limit.afterRequests ?? 0) <= 0 { grantedStreamLimit = limit.value }
        connection.submitSettings(maxConcurrentStreams: streamsGranted ? grantedStreamLimit : 1)
        connection.setConnectionWindow(Self.connectionWindow)
        if let goAway = faults.goAway, goAway.afterRequests <= 0 { sendGoAway(goAway, defaultLastStreamId: 0) }
    }

    func woken(_ connection: H2Connection) { refreshFaultsIfScriptChanged() }

    private func readScript() {
        let (script, version) = state.versionedScript
        faults = ConnectionFaults(rules: script.connections, connectionId: id, nextRule: nextRule)
        hasDeviceRules = !script.devices.isEmpty
        scriptVersion = version
    }

    /// Re-reads the faults after a script change; rules with `afterRequests` 0 act at once, other ordinals
    /// count from now. Called for a request about to be answered, `before` is its stream id: a GOAWAY sent
    /// now then leaves that stream (and later ones) unprocessed.
    private func refreshFaultsIfScriptChanged(before streamId: Int32? = nil) {
        guard state.scriptVersion != scriptVersion else { return }
        readScript()
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
        defer { afterRequest(ordinal, streamId: streamId) }
        if faults.refuse.contains(ordinal) {
            connection.refuse(stream)
            return
        }
        switch service.check(stream, on: connection) {
        case .unrecorded(let reply):
            connection.respond(stream, status: reply.status, headers: reply.headers, body: reply.body)
        case .refused(let answer):
            self.answer(stream, answer)
        case .valid(let token, let accepted):
            if !streamsGranted {
                streamsGranted = true
                connection.submitSettings(maxConcurrentStreams: grantedStreamLimit)
            }
            answerValid(stream, token: token, accepted: accepted)
        }
    }

    /// Answers a valid request as the script's rule for its token says: another answer, later, or never.
    private func answerValid(_ stream: RequestStream, token: String, accepted: Service.Answer) {
        guard hasDeviceRules, let rule = state.rule(for: token) else {
            answer(stream, accepted)
            return
        }
        let scripted = service.answer(accepted, scriptedBy: rule)
        if rule.neverAnswer == true {
            stream.answered = true
        } else if let delay = rule.delayMs, delay > 0 {
            let streamId = stream.id
            connection.schedule(after: .milliseconds(delay)) { [weak self] connection in
                guard let self, let stream = connection.stream(streamId), !stream.answered else { return }
                answer(stream, scripted)
            }
        } else {
            answer(stream, scripted)
        }
    }

    private func answer(_ stream: RequestStream, _ answer: Service.Answer) {
        let reply = service.reply(to: stream, with: answer)
        connection.respond(stream, status: reply.status, headers: reply.headers, body: reply.body)
        recording.record(accepted: reply.status == Service.acceptedStatus) {
            service.record(of: stream, answer: answer, reply: reply, on: connection)
        }
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

    private func sendGoAway(_ goAway: MockConnectionRule.GoAway, defaultLastStreamId: Int32) {
        let last = goAway.lastStreamId.map { Int32(clamping: $0) } ?? defaultLastStreamId
        var debug: [UInt8] = []
        if let reason = goAway.reason, let data = try? JSONEncoder().encode(["reason": reason]) {
            debug = Array(data)
        }
        connection.sendGoAway(lastStreamId: last, errorCode: goAway.errorCode ?? 0, debug: debug)
    }
}
