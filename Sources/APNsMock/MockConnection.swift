import CNghttp2
import COpenSSL
import Foundation
import RelayCore
import RelayCrypto

/// One accepted connection: its socket, optional TLS, nghttp2 server session, requests and faults.
///
/// Not `Sendable`: created, used and closed only on the event-loop thread. The nghttp2 session's user data
/// is this object unretained; the loop's connection table keeps it alive while the session exists.
final class MockConnection {
    let id: Int
    let fd: Int32
    unowned let loop: EventLoop
    private var ssl: OpaquePointer?
    private var handshaking: Bool
    private var handshakeWantsWrite = false
    private var session: OpaquePointer?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var streams: [Int32: RequestStream] = [:]
    private var requestCount = 0
    /// The `"next"` rule this connection took when accepted.
    private let nextRule: MockScript.ConnectionRule?
    private var faults = MockCore.ConnectionFaults()
    private var faultsVersion = -1
    /// Request ordinals in fault rules count from here: the request count when the faults took effect.
    private var faultsBaseline = 0
    private var tokenCheck = ProviderTokenCheck()
    private var certificateAuthenticated = false
    private var streamsGranted = true
    private var grantedStreamLimit = 0
    private var goAwayLastStreamId: Int32?
    private var dropWhenFlushed = false
    /// The last body that was a JSON object: an identical body is not parsed again.
    private var lastValidBody: [UInt8] = []
    private(set) var closed = false
    /// Set once the connection is finished and its last frames are out: the write side is shut and what the
    /// client still sends is read and dropped until it closes or this deadline passes.
    private(set) var lingerDeadline: ContinuousClock.Instant?
    private var uuids = FastUUID()
    // Copied from the configuration once: reading the struct through the loop per request retains its fields.
    private let authentication: MockAPNsConfiguration.Authentication
    private let providerKeys: [String: (teamId: String, key: ES256Key)]
    private let allowedTopics: Set<String>?
    private let timeSource: any TimeSource
    private let sandbox: Bool
    private let recordInMemory: Bool
    private let onAccepted: (@Sendable (RecordedRequest) -> Void)?

    private static let outputChunk = 64 * 1024
    /// How long a finished connection waits for the client to close before closing anyway.
    static let lingerTime = Duration.seconds(2)

    init(id: Int, fd: Int32, nextRule: MockScript.ConnectionRule?, loop: EventLoop) {
        self.id = id
        self.fd = fd
        self.nextRule = nextRule
        self.loop = loop
        handshaking = loop.tls != nil
        let configuration = loop.core.configuration
        authentication = configuration.authentication
        providerKeys = configuration.providerKeys
        allowedTopics = configuration.allowedTopics
        timeSource = configuration.timeSource
        sandbox = configuration.environment == .sandbox
        recordInMemory = configuration.recordInMemory
        onAccepted = configuration.onAccepted
        output.reserveCapacity(Self.outputChunk)
        if let tls = loop.tls {
            guard let ssl = SSL_new(tls.raw) else {
                closed = true
                Glibc.close(fd)
                return
            }
            self.ssl = ssl
            SSL_set_fd(ssl, fd)
            SSL_set_accept_state(ssl)
        } else {
            startSession()
        }
    }

    deinit { close() }

    /// Whether the loop should wait for the socket to become writable.
    var wantsWrite: Bool { lingerDeadline == nil && (handshakeWantsWrite || outputOffset < output.count) }

    // MARK: Socket events

    func onReadable() {
        guard !closed else { return }
        if lingerDeadline != nil {
            discardUntilClosed()
            return
        }
        if handshaking {
            handshake()
        } else {
            readAvailable()
        }
        flush()
    }

    func onWritable() {
        guard !closed, lingerDeadline == nil else { return }
        if handshaking {
            handshake()
        }
        flush()
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        streams.removeAll()
        Glibc.close(fd)
    }

    /// Ends a connection whose last frames (a GOAWAY, the last answers) are written: TLS close_notify, then
    /// the write side is shut, and the socket stays open to read and drop whatever the client still sends
    /// until it closes (or ``lingerTime`` passes). Closing at once would make the kernel answer the client's
    /// next bytes with a reset, which can reach the client before it has read the GOAWAY; the client would
    /// then see a failed write instead of unprocessed streams it may retry (RFC 9113 section 6.8).
    private func finish() {
        guard !closed, lingerDeadline == nil else { return }
        if let ssl {
            SSL_shutdown(ssl)
            ERR_clear_error()
        }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        if let session { nghttp2_session_del(session) }
        session = nil
        streams.removeAll()
        lingerDeadline = .now + Self.lingerTime
    }

    /// While lingering: reads and drops the client's bytes; closes on its end of stream or an error.
    private func discardUntilClosed() {
        let buffer = loop.readBuffer
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            close()
            return
        }
    }

    /// Closes a lingering connection whose deadline has passed; returns whether it is closed.
    func closeIfLingeredUntil(_ now: ContinuousClock.Instant) -> Bool {
        if let lingerDeadline, lingerDeadline <= now { close() }
        return closed
    }

    private func handshake() {
        guard let ssl else { return }
        handshakeWantsWrite = false
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: return
            case SSL_ERROR_WANT_WRITE: handshakeWantsWrite = true
            default:
                ERR_clear_error()
                close()
            }
            return
        }
        handshaking = false
        var protocolName: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &protocolLength)
        guard protocolLength == 2, let protocolName, protocolName[0] == UInt8(ascii: "h"),
            protocolName[1] == UInt8(ascii: "2")
        else {
            close()
            return
        }
        if loop.tls?.verifiesClients == true, let certificate = SSL_get1_peer_certificate(ssl) {
            X509_free(certificate)
            certificateAuthenticated = SSL_get_verify_result(ssl) == X509_V_OK
        }
        startSession()
        readAvailable()
    }

    private func startSession() {
        var session: OpaquePointer?
        guard
            nghttp2_session_server_new(&session, loop.callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
            let session
        else {
            close()
            return
        }
        self.session = session
        let configuration = loop.core.configuration
        let tokenAuth = configuration.authentication == .providerToken && !certificateAuthenticated
        grantedStreamLimit = configuration.maxConcurrentStreams
        streamsGranted = !tokenAuth
        (faults, faultsVersion) = loop.core.faults(connectionId: id, nextRule: nextRule)
        if let limit = faults.streamLimit, (limit.afterRequests ?? 0) <= 0 { grantedStreamLimit = limit.value }
        submitSettings(maxConcurrentStreams: tokenAuth ? 1 : grantedStreamLimit)
        if let goAway = faults.goAway, goAway.afterRequests <= 0 { sendGoAway(goAway, defaultLastStreamId: 0) }
    }

    /// Re-reads the faults after a script change; rules with `afterRequests` 0 act at once, other ordinals
    /// count from now. Called for a request about to be answered, `before` is its stream id: a GOAWAY sent
    /// now then leaves that stream (and later ones) unprocessed.
    func refreshFaultsIfScriptChanged(before streamId: Int32? = nil) {
        guard !closed, let session,
            loop.core.scriptVersion.load(ordering: .sequentiallyConsistent) != faultsVersion
        else { return }
        (faults, faultsVersion) = loop.core.faults(connectionId: id, nextRule: nextRule)
        faultsBaseline = requestCount
        if let limit = faults.streamLimit, (limit.afterRequests ?? 0) <= 0, limit.value != grantedStreamLimit {
            grantedStreamLimit = limit.value
            if streamsGranted { submitSettings(maxConcurrentStreams: limit.value) }
        }
        if let goAway = faults.goAway, goAway.afterRequests <= 0 {
            let processed = nghttp2_session_get_last_proc_stream_id(session)
            sendGoAway(goAway, defaultLastStreamId: streamId.map { min(processed, max(0, $0 - 2)) } ?? processed)
        }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        while !closed, let session {
            let count: Int
            if let ssl {
                let result = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if result <= 0 {
                    switch SSL_get_error(ssl, result) {
                    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return
                    default:
                        ERR_clear_error()
                        close()
                        return
                    }
                }
                count = Int(result)
            } else {
                count = recv(fd, buffer.baseAddress, buffer.count, 0)
                if count == 0 {
                    close()
                    return
                }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                    close()
                    return
                }
            }
            let consumed = nghttp2_session_mem_recv(
                session,
                buffer.baseAddress!.assumingMemoryBound(to: UInt8.self),
                count
            )
            if consumed < 0 {
                // Garbage or a protocol error: nghttp2 may have queued a GOAWAY; send it, then finish.
                flushOutputOnly()
                finish()
                return
            }
        }
    }

    /// Moves nghttp2's pending frames to the socket; closes when the connection is finished.
    func flush() {
        guard !closed, let session else { return }
        while true {
            if outputOffset < output.count {
                guard writeOutput() else { return }
            }
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            while output.count < Self.outputChunk {
                var data: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &data)
                if length < 0 {
                    close()
                    return
                }
                guard length > 0, let data else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            }
            if output.isEmpty { break }
        }
        if dropWhenFlushed {
            close()  // the scripted drop: abrupt, as a failed network would be
        } else if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            finish()
        } else if let last = goAwayLastStreamId, !streams.keys.contains(where: { $0 <= last }) {
            finish()
        }
    }

    /// Best effort before closing on an error: whatever nghttp2 queued (usually GOAWAY).
    private func flushOutputOnly() {
        guard let session else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            guard length > 0, let data else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        }
        _ = writeOutput()
    }

    /// Writes buffered output; false when the socket would block (or the connection closed).
    private func writeOutput() -> Bool {
        while outputOffset < output.count {
            let written: Int = output.withUnsafeBytes { bytes in
                let start = bytes.baseAddress! + outputOffset
                let remaining = bytes.count - outputOffset
                if let ssl {
                    let result = SSL_write(ssl, start, Int32(min(remaining, Int(Int32.max))))
                    if result > 0 { return Int(result) }
                    switch SSL_get_error(ssl, result) {
                    case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return 0
                    default:
                        ERR_clear_error()
                        return -1
                    }
                }
                let result = send(fd, start, remaining, Int32(MSG_NOSIGNAL))
                if result >= 0 { return result }
                return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1
            }
            if written < 0 {
                close()
                return false
            }
            if written == 0 { return false }
            outputOffset += written
        }
        return true
    }

    // MARK: nghttp2 callbacks

    func beginStream(_ streamId: Int32) {
        streams[streamId] = RequestStream(id: streamId)
    }

    func header(stream streamId: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamId] else { return }
        stream.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    func data(stream streamId: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamId] else { return }
        stream.bodyBytes += bytes.count
        let room = RequestValidator.maxBufferedBody - stream.body.count
        if room > 0 { stream.body.append(contentsOf: bytes.prefix(room)) }
    }

    func streamClosed(_ streamId: Int32) {
        streams[streamId] = nil
    }

    func readResponseBody(
        stream streamId: Int32,
        into buffer: UnsafeMutableBufferPointer<UInt8>,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamId] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(buffer.count, stream.responseBody.count - stream.responseOffset)
        stream.responseBody.withUnsafeBufferPointer { body in
            for index in 0..<count { buffer[index] = body[stream.responseOffset + index] }
        }
        stream.responseOffset += count
        if stream.responseOffset >= stream.responseBody.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    // MARK: Requests

    func requestComplete(stream streamId: Int32) {
        guard let stream = streams[streamId], !stream.answered else { return }
        // A script change not yet seen acts before this request: a GOAWAY it adds does not cover it.
        refreshFaultsIfScriptChanged(before: streamId)
        if let last = goAwayLastStreamId, streamId > last {
            // Above the GOAWAY's last-stream-id: not processed (RFC 9113 section 6.8), so the client may
            // resend it on a new connection; refuse it rather than answer it.
            stream.answered = true
            nghttp2_submit_rst_stream(session, 0, streamId, NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        requestCount += 1
        let ordinal = requestCount - faultsBaseline
        if faults.refuse.contains(ordinal) {
            stream.answered = true
            nghttp2_submit_rst_stream(session, 0, streamId, NGHTTP2_REFUSED_STREAM.rawValue)
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
        var pushType = PushType.alert
        if failure == nil {
            switch RequestValidator.checkHeaders(
                stream.headers,
                topicRequired: !certificateAuthenticated,
                allowedTopics: allowedTopics
            ) {
            case .failure(let headerFailure): failure = headerFailure
            case .success(let type): pushType = type
            }
        }
        if failure == nil {
            if stream.bodyBytes > 0, stream.bodyBytes <= pushType.maxPayloadBytes, stream.body == lastValidBody {
                // Same bytes as the last valid body on this connection: already known to be a JSON object.
            } else if let bodyFailure = RequestValidator.checkBody(
                stream.body,
                totalBytes: stream.bodyBytes,
                pushType: pushType
            ) {
                failure = bodyFailure
            } else {
                lastValidBody = stream.body
            }
        }
        if let failure {
            answer(stream, status: failure.status, reason: failure.reason.description, timestamp: nil)
            afterRequest(ordinal, streamId: streamId)
            return
        }
        if tokenAuthenticated && !streamsGranted {
            streamsGranted = true
            submitSettings(maxConcurrentStreams: grantedStreamLimit)
        }
        if let scripted = loop.core.deviceAnswer(token: token) {
            let status = scripted.status ?? 200
            let reason = status == 200 ? nil : (scripted.reason ?? "InternalServerError")
            if scripted.neverAnswer {
                stream.answered = true
            } else if scripted.delayMs > 0 {
                loop.schedule(
                    EventLoop.DelayedAnswer(
                        deadline: .now + .milliseconds(scripted.delayMs),
                        connectionId: id,
                        streamId: streamId,
                        status: status,
                        reason: reason,
                        timestamp: scripted.timestamp
                    )
                )
            } else {
                answer(stream, status: status, reason: reason, timestamp: scripted.timestamp)
            }
        } else {
            answer(stream, status: 200, reason: nil, timestamp: nil)
        }
        afterRequest(ordinal, streamId: streamId)
    }

    /// Answers a delayed request if its stream is still open.
    func answerDelayed(_ delayed: EventLoop.DelayedAnswer) {
        guard !closed, let stream = streams[delayed.streamId], !stream.answered else { return }
        answer(stream, status: delayed.status, reason: delayed.reason, timestamp: delayed.timestamp)
        flush()
    }

    private func afterRequest(_ ordinal: Int, streamId: Int32) {
        if let goAway = faults.goAway, goAway.afterRequests == ordinal {
            sendGoAway(goAway, defaultLastStreamId: streamId)
        }
        if let limit = faults.streamLimit, let after = limit.afterRequests, after > 0, after == ordinal {
            submitSettings(maxConcurrentStreams: limit.value)
        }
        if faults.dropAfterRequests == ordinal { dropWhenFlushed = true }
    }

    private struct ErrorBody: Encodable {
        var reason: String
        var timestamp: Int64?
    }

    /// Submits the answer (Apple, "Handling notification responses from APNs"): `apns-id` always (echoed or
    /// a new lowercase UUID), `apns-unique-id` on sandbox 200s, and `{"reason":..., "timestamp": ms}` bodies.
    private func answer(_ stream: RequestStream, status: Int, reason: String?, timestamp: Int64?) {
        stream.answered = true
        let apnsId = stream.headers.first { $0.name == "apns-id" }?.value ?? uuids.string()
        var headers: [(String, String)] = [(":status", String(status)), ("apns-id", apnsId)]
        if status == 200 {
            if sandbox {
                headers.append(("apns-unique-id", uuids.string()))
            }
        } else {
            var timestamp = timestamp
            if status == 410 && timestamp == nil {
                timestamp = Int64((timeSource.now.timeIntervalSince1970 * 1000).rounded())
            }
            let body = ErrorBody(reason: reason ?? "", timestamp: timestamp)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            stream.responseBody = Array((try? encoder.encode(body)) ?? Data())
            headers.append(("content-type", "application/json"))
            headers.append(("content-length", String(stream.responseBody.count)))
        }
        submitResponse(stream.id, headers: headers, hasBody: status != 200)

        let record: RecordedRequest?
        if recordInMemory || loop.recorder != nil || (status == 200 && onAccepted != nil) {
            record = RecordedRequest(
                connectionId: id,
                streamId: Int(stream.id),
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
        if let record { loop.recorder?.write(record) }
        loop.core.record(record)
        if status == 200, let record, let onAccepted { onAccepted(record) }
    }

    private func submitResponse(_ streamId: Int32, headers: [(String, String)], hasBody: Bool) {
        var bytes: [UInt8] = []
        var offsets: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
        offsets.reserveCapacity(headers.count)
        for (name, value) in headers {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            offsets.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }
        bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            var nva = offsets.map {
                nghttp2_nv(
                    name: base + $0.name,
                    value: base + $0.value,
                    namelen: $0.nameLength,
                    valuelen: $0.valueLength,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                )
            }
            if hasBody {
                var provider = nghttp2_data_provider(
                    source: nghttp2_data_source(ptr: nil),
                    read_callback: NghttpCallbacks.readBody
                )
                nghttp2_submit_response(session, streamId, &nva, nva.count, &provider)
            } else {
                nghttp2_submit_response(session, streamId, &nva, nva.count, nil)
            }
        }
    }

    private func submitSettings(maxConcurrentStreams: Int) {
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            value: UInt32(clamping: max(0, maxConcurrentStreams))
        )
        nghttp2_submit_settings(session, 0, &entry, 1)
    }

    private func sendGoAway(_ goAway: MockScript.ConnectionRule.GoAway, defaultLastStreamId: Int32) {
        guard goAwayLastStreamId == nil else { return }
        let last = goAway.lastStreamId.map { Int32(clamping: $0) } ?? defaultLastStreamId
        var debug: [UInt8] = []
        if let reason = goAway.reason, let data = try? JSONEncoder().encode(["reason": reason]) {
            debug = Array(data)
        }
        nghttp2_submit_goaway(session, 0, last, goAway.errorCode ?? 0, debug, debug.count)
        goAwayLastStreamId = last
    }
}
