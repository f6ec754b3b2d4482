import CMicroHTTPD
import RelayCore

/// libmicrohttpd's C callbacks; `cls` is the unretained ``ServerCore`` (kept alive by ``MHDDaemon``), or
/// `nil` for a daemon that serves no connection (``TLSCertificate``'s check).
enum MHDCallbacks {
    static let uriLog:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>, OpaquePointer) ->
            UnsafeMutableRawPointer? = { cls, uri, connection in
                guard let cls else { return nil }
                let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                return core.requestStarted(target: uri, connection: connection)
            }

    static let completed: MHD_RequestCompletedCallback = { cls, _, requestContext, _ in
        guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
        requestContext.pointee = nil
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestCompleted(pointer)
    }

    static let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            // Called on the thread that serves the connection: writes to a peer that left fail with EPIPE.
            BrokenPipe.blockOnThisThread()
            core.connectionStarted(connection)
        case .CONNECTION_NOTIFY_CLOSED: core.connectionClosed(connection)
        default: break
        }
    }

    static let access: MHD_AccessHandlerCallback = {
        cls,
        connection,
        _,
        method,
        version,
        uploadData,
        uploadDataSize,
        requestContext in
        guard let cls, let connection, let method, let uploadDataSize, let pointer = requestContext?.pointee else {
            return .NO
        }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
        return core.access(
            connection: connection,
            method: String(cString: method),
            requestStart: method,
            version: version.map { String(cString: $0) } ?? "",
            cut: context.cut(method: method, version: version),
            uploadData: uploadData,
            uploadSize: uploadDataSize,
            context: context
        )
    }
}
