import CNghttp2
import COpenSSL
import Foundation

/// One accepted connection: its socket, optional TLS, nghttp2 server session and streams; its
/// ``ConnectionHandler`` decides what each request gets.
///
/// Not `Sendable`: created, used and closed only on the event-loop thread. The nghttp2 session's user data
/// is this object unretained; the loop's connection table keeps it alive while the session exists. It owns
/// its handler, which refers back to it unowned.
package final class H2Connection {
    /// 1 for the loop's first accepted connection, counting up.
    package let id: Int
    let fd: Int32
    unowned let loop: EventLoop
    private var handler: (any ConnectionHandler)?
    private var ssl: OpaquePointer?
    private var handshaking: Bool
    private var handshakeWantsWrite = false
    private var session: OpaquePointer?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var streams: [Int32: RequestStream] = [:]
    /// True when the client presented a certificate that verified against the loop's client CA.
    package private(set) var peerCertificateVerified = false
    /// The last-stream-id of the GOAWAY sent, if one was.
    package private(set) var goAwayLastStreamId: Int32?
    private var dropWhenFlushed = false
    private(set) var closed = false
    /// Set once the connection is finished and its last frames are out: the write side is shut and what the
    /// client still sends is read and dropped until it closes or this deadline passes.
    private(set) var lingerDeadline: ContinuousClock.Instant?
    private static let outputChunk = 64 * 1024
    /// How long a finished connection waits for the client to close before closing anyway.
    static let lingerTime = Duration.seconds(2)

    init(id: Int, fd: Int32, loop: EventLoop) {
        self.id = id
        self.fd = fd
        self.loop = loop
        handshaking = loop.tls != nil
        output.reserveCapacity(Self.outputChunk)
    }

    /// Takes the handler and begins: the TLS handshake, or the HTTP/2 session at once for h2c.
    func start(handler: any ConnectionHandler) {
        self.handler = handler
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
            peerCertificateVerified = SSL_get_verify_result(ssl) == X509_V_OK
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
        handler?.sessionStarted(self)
    }

    /// Tells the handler the loop was woken (a script may have changed).
    func woken() {
        guard !closed, session != nil else { return }
        handler?.woken(self)
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

    /// The stream `streamId`, while it is open.
    package func stream(_ streamId: Int32) -> RequestStream? { streams[streamId] }

    /// Streams open now (begun and not yet closed).
    package var openStreamCount: Int { streams.count }

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
        let room = loop.bodyLimit - stream.body.count
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
        handler?.requestComplete(stream, on: self)
    }

    /// Refuses the stream with RST_STREAM REFUSED_STREAM (RFC 9113 §8.7: not processed, safe to resend).
    package func refuse(_ stream: RequestStream) {
        stream.answered = true
        nghttp2_submit_rst_stream(session, 0, stream.id, NGHTTP2_REFUSED_STREAM.rawValue)
    }

    /// Refuses the stream when it is above the last-stream-id of a GOAWAY sent: not processed (RFC 9113
    /// §6.8), so the client may resend it on a new connection. Returns whether it did.
    package func refuseIfAboveGoAway(_ stream: RequestStream) -> Bool {
        guard let last = goAwayLastStreamId, stream.id > last else { return false }
        refuse(stream)
        return true
    }

    /// Answers the stream: `:status`, `headers` (lowercase names), and `body` with its `content-length`
    /// when not empty.
    package func respond(_ stream: RequestStream, status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        stream.answered = true
        var all = [(":status", String(status))]
        all.append(contentsOf: headers)
        if !body.isEmpty {
            stream.responseBody = body
            all.append(("content-length", String(body.count)))
        }
        submitResponse(stream.id, headers: all, hasBody: !body.isEmpty)
    }

    /// Runs `fire` with this connection after `delay` (on the loop thread), unless it closed meanwhile.
    package func schedule(after delay: Duration, _ fire: @escaping (H2Connection) -> Void) {
        loop.schedule(at: .now + delay, connectionId: id, fire)
    }

    /// Closes the TCP connection abruptly (no GOAWAY) once the output queued so far is written, as a failed
    /// network would.
    package func dropWhenFlushedOut() { dropWhenFlushed = true }

    /// The highest stream id the session has processed (`nghttp2_session_get_last_proc_stream_id`).
    package var lastProcessedStreamId: Int32 { session.map { nghttp2_session_get_last_proc_stream_id($0) } ?? 0 }

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

    /// Submits a SETTINGS frame with SETTINGS_MAX_CONCURRENT_STREAMS.
    package func submitSettings(maxConcurrentStreams: Int) {
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            value: UInt32(clamping: max(0, maxConcurrentStreams))
        )
        nghttp2_submit_settings(session, 0, &entry, 1)
    }

    /// Sets the connection's receive window (stream 0, RFC 9113 §6.9) to `bytes`: a WINDOW_UPDATE for the
    /// difference.
    package func setConnectionWindow(_ bytes: Int32) {
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, bytes)
    }

    /// Sends GOAWAY (RFC 9113 §6.8) once: later calls do nothing. The connection then finishes when every
    /// stream at or below `lastStreamId` was answered.
    package func sendGoAway(lastStreamId: Int32, errorCode: UInt32, debug: [UInt8]) {
        guard goAwayLastStreamId == nil else { return }
        nghttp2_submit_goaway(session, 0, lastStreamId, errorCode, debug, debug.count)
        goAwayLastStreamId = lastStreamId
    }
}
