import CNghttp2
import Foundation

/// A minimal HTTP/2 client on nghttp2 over a blocking h2c socket that records frame-level events libcurl
/// hides: SETTINGS_MAX_CONCURRENT_STREAMS values, GOAWAY and RST_STREAM. Test-only, not `Sendable`.
final class H2Probe {
    struct GoAway {
        var lastStreamId: Int32
        var errorCode: UInt32
        var debugData: String
    }

    private let socket: RawSocket
    private var session: OpaquePointer?
    private(set) var maxConcurrentStreams: [UInt32] = []
    private(set) var goAways: [GoAway] = []
    private(set) var resets: [Int32: UInt32] = [:]
    private(set) var statuses: [Int32: Int] = [:]
    private(set) var closedStreams: Set<Int32> = []
    private(set) var connectionClosed = false
    /// Whether the connection ended with a reset (ECONNRESET) rather than the server's end of stream.
    private(set) var connectionReset = false
    private var bodies: [Int32: [UInt8]] = [:]

    private static func probe(_ user: UnsafeMutableRawPointer?) -> H2Probe {
        Unmanaged<H2Probe>.fromOpaque(user!).takeUnretainedValue()
    }

    init(port: Int) throws {
        socket = try RawSocket(port: port)
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            let probe = H2Probe.probe(user)
            switch UInt32(frame.pointee.hd.type) {
            case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
                for index in 0..<frame.pointee.settings.niv {
                    let entry = frame.pointee.settings.iv[index]
                    if entry.settings_id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                        probe.maxConcurrentStreams.append(entry.value)
                    }
                }
            case NGHTTP2_GOAWAY.rawValue:
                let goAway = frame.pointee.goaway
                let debug =
                    goAway.opaque_data.map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: goAway.opaque_data_len), as: UTF8.self)
                    }
                    ?? ""
                probe.goAways.append(
                    GoAway(lastStreamId: goAway.last_stream_id, errorCode: goAway.error_code, debugData: debug)
                )
            case NGHTTP2_RST_STREAM.rawValue:
                probe.resets[frame.pointee.hd.stream_id] = frame.pointee.rst_stream.error_code
            default: break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _,
            frame,
            name,
            nameLength,
            value,
            valueLength,
            _,
            user in
            guard let frame, let name, let value else { return 0 }
            if String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self) == ":status" {
                H2Probe.probe(user).statuses[frame.pointee.hd.stream_id] = Int(
                    String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
                )
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamId, _, user in
            H2Probe.probe(user).closedStreams.insert(streamId)
            return 0
        }
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, 0, nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// How many bytes of request bodies the server's connection window lets this client send now.
    var connectionSendWindow: Int32 { nghttp2_session_get_remote_window_size(session) }

    private static let readBody:
        @convention(c) (
            OpaquePointer?, Int32, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<UInt32>?,
            UnsafeMutablePointer<nghttp2_data_source>?, UnsafeMutableRawPointer?
        ) -> Int = { _, streamId, buffer, length, flags, _, user in
            let probe = H2Probe.probe(user)
            let body = probe.bodies[streamId] ?? []
            let count = min(length, body.count)
            for index in 0..<count { buffer![index] = body[index] }
            probe.bodies[streamId] = Array(body.dropFirst(count))
            if count == body.count { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }

    /// Queues `POST path` with the headers (`name: value`) and body; returns the stream id.
    @discardableResult
    func post(path: String, headers: [(String, String)], body: Data) -> Int32 {
        let all = [(":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path)] + headers
        var bytes: [UInt8] = []
        var offsets: [(Int, Int, Int, Int)] = []
        for (name, value) in all {
            let start = bytes.count
            bytes += Array(name.utf8)
            let valueStart = bytes.count
            bytes += Array(value.utf8)
            offsets.append((start, valueStart - start, valueStart, bytes.count - valueStart))
        }
        return bytes.withUnsafeMutableBufferPointer { buffer in
            var nva = offsets.map {
                nghttp2_nv(
                    name: buffer.baseAddress! + $0.0,
                    value: buffer.baseAddress! + $0.2,
                    namelen: $0.1,
                    valuelen: $0.3,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                )
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readBody)
            let id = nghttp2_submit_request(session, nil, &nva, nva.count, &provider, nil)
            bodies[id] = Array(body)
            return id
        }
    }

    /// Writes a PING frame at once, without reading.
    func ping() {
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            guard length > 0, let data else { break }
            socket.write(Data(bytes: data, count: length))
        }
    }

    /// Whether the server resets the connection within `timeout`: waits only for an error or hang-up, which
    /// after the server's end of stream a reset alone raises (the client's own write side is still open).
    func sawReset(within timeout: Duration) -> Bool {
        var entry = pollfd(fd: socket.fd, events: 0, revents: 0)
        return poll(&entry, 1, Int32(timeout.components.seconds * 1000)) > 0
    }

    /// Sends what is queued and reads frames until `done` holds, the server closes, or 5 s pass.
    func pump(until done: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(5)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !done() && !connectionClosed && ContinuousClock.now < deadline {
            while true {
                var data: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &data)
                guard length > 0, let data else { break }
                socket.write(Data(bytes: data, count: length))
            }
            if done() { return }
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            if count <= 0 {
                connectionClosed = true
                connectionReset = count < 0 && (errno == ECONNRESET || errno == EPIPE)
                return
            }
            _ = nghttp2_session_mem_recv(session, buffer, count)
        }
    }
}
