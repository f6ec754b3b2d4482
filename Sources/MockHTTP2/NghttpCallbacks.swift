import CNghttp2

/// The nghttp2 callbacks a server session uses; each forwards to the ``H2Connection`` in `user_data`.
enum NghttpCallbacks {
    private static func connection(_ userData: UnsafeMutableRawPointer?) -> H2Connection {
        Unmanaged<H2Connection>.fromOpaque(userData!).takeUnretainedValue()
    }

    static let onBeginHeaders:
        @convention(c) (OpaquePointer?, UnsafePointer<nghttp2_frame>?, UnsafeMutableRawPointer?) -> Int32 = {
            _,
            frame,
            userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            connection(userData).beginStream(frame.pointee.hd.stream_id)
            return 0
        }

    static let onHeader:
        @convention(c) (
            OpaquePointer?, UnsafePointer<nghttp2_frame>?, UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int,
            UInt8, UnsafeMutableRawPointer?
        ) -> Int32 = { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value else { return 0 }
            connection(userData).header(
                stream: frame.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength)
            )
            return 0
        }

    static let onDataChunk:
        @convention(c) (OpaquePointer?, UInt8, Int32, UnsafePointer<UInt8>?, Int, UnsafeMutableRawPointer?) -> Int32 =
            { _, _, streamId, data, length, userData in
                guard let data else { return 0 }
                connection(userData).data(stream: streamId, UnsafeBufferPointer(start: data, count: length))
                return 0
            }

    static let onFrameReceived:
        @convention(c) (OpaquePointer?, UnsafePointer<nghttp2_frame>?, UnsafeMutableRawPointer?) -> Int32 = {
            _,
            frame,
            userData in
            guard let frame else { return 0 }
            let type = UInt32(frame.pointee.hd.type)
            guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
                frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            else { return 0 }
            connection(userData).requestComplete(stream: frame.pointee.hd.stream_id)
            return 0
        }

    static let onStreamClose: @convention(c) (OpaquePointer?, Int32, UInt32, UnsafeMutableRawPointer?) -> Int32 = {
        _,
        streamId,
        _,
        userData in
        connection(userData).streamClosed(streamId)
        return 0
    }

    static let readBody:
        @convention(c) (
            OpaquePointer?, Int32, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<UInt32>?,
            UnsafeMutablePointer<nghttp2_data_source>?, UnsafeMutableRawPointer?
        ) -> Int = { _, streamId, buffer, length, flags, _, userData in
            guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            return connection(userData).readResponseBody(
                stream: streamId,
                into: UnsafeMutableBufferPointer(start: buffer, count: length),
                flags: flags
            )
        }

    /// One callbacks object for every session of a loop. Freed by ``free(_:)``.
    static func make() -> OpaquePointer {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        return callbacks!
    }
}
