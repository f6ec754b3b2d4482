import Foundation
import RelayCore
import RelayHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Starts a server on 127.0.0.1 port 0, runs `body`, and always shuts the server down.
func withServer<T>(
    configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    tls: TLSCertificate? = nil,
    logger: Logger = .disabled(),
    headerCheck: HeaderVerdict.Check? = nil,
    onResponse: (@Sendable (AccessLogEntry) -> Void)? = nil,
    handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    var configuration = HTTPServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configure(&configuration)
    let server = HTTPServer(
        configuration: configuration,
        tls: tls,
        headerCheck: headerCheck,
        handler: handler,
        logger: logger,
        onResponse: onResponse
    )
    try server.start()
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// A response as URLSession (libcurl underneath on Linux) parsed it.
struct ClientResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// `error.code` of a JSON error body.
    var errorCode: String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return nil }
        return error["code"] as? String
    }
    var errorMessage: String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return nil }
        return error["message"] as? String
    }
}

/// Sends one request with URLSession.
func send(
    _ method: String,
    _ port: Int,
    _ target: String,
    headers: [String: String] = [:],
    body: Data? = nil,
    session: URLSession = .shared
) async throws -> ClientResponse {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(target)")!)
    request.httpMethod = method
    request.timeoutInterval = 20
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await session.data(for: request)
    let http = response as! HTTPURLResponse
    var fields: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
        if let key = key as? String, let value = value as? String { fields[key] = value }
    }
    return ClientResponse(status: http.statusCode, headers: fields, body: data)
}

/// A blocking TCP client for raw bytes (malformed requests, slow clients, keep-alive). Every call runs on
/// its own thread, never on Swift's cooperative pool, so a blocked read cannot starve the server's handlers.
final class RawConnection: @unchecked Sendable {
    // @unchecked Sendable: `fd` is immutable after init and each test drives one connection sequentially.
    let fd: Int32

    /// Connects to 127.0.0.1:`port`, from `source` (any address of 127/8 is this machine's loopback) when
    /// given, with a receive buffer of `receiveBuffer` bytes when given (a slow reader's small window).
    /// The descriptor is `self.fd` only once connected: a throwing initializer whose properties are all set
    /// still runs `deinit`, and a second `close` of a number another thread reuses would close its socket.
    init(port: Int, from source: String? = nil, receiveTimeout: Int = 10, receiveBuffer: Int32? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func call(_ address: String, port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = UInt16(port).bigEndian
            socketAddress.sin_addr.s_addr = inet_addr(address)
            return withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if let source, call(source, port: 0, { bind(fd, $0, $1) }) != 0 {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        guard call("127.0.0.1", port: port, { connect(fd, $0, $1) }) == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; returns false if the peer closed.
    @discardableResult
    func write(_ bytes: Data) async -> Bool {
        await offPool {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Foundation.send(self.fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if n <= 0 { return false }
                    offset += n
                }
                return true
            }
        }
    }

    @discardableResult
    func write(_ text: String) async -> Bool { await write(Data(text.utf8)) }

    /// Reads until `marker` appears in what was read, the peer closes, or the receive timeout passes.
    func read(until marker: String? = nil) async -> String {
        await offPool {
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
                let n = recv(self.fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                received.append(contentsOf: buffer[0..<n])
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// True once the peer has closed (reads EOF or reset) within the receive timeout.
    func readsEndOfStream() async -> Bool {
        await offPool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(self.fd, &buffer, buffer.count, 0)
                if n == 0 { return true }
                if n < 0 { return errno == ECONNRESET }
            }
        }
    }

    /// Sends `byte` every `interval` until the peer closes or `bound` passes. Returns whether the peer closed,
    /// and anything it sent before (an answer, when one came).
    func trickle(
        _ byte: UInt8,
        every interval: Duration,
        atMost bound: Duration
    ) async -> (closed: Bool, received: String) {
        await offPool {
            let deadline = ContinuousClock.now + bound
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var one = byte
            while ContinuousClock.now < deadline {
                if Foundation.send(self.fd, &one, 1, Int32(MSG_NOSIGNAL)) < 0 {
                    return (true, String(decoding: received, as: UTF8.self))
                }
                Thread.sleep(forTimeInterval: interval.timeInterval)
                let n = recv(self.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    return (true, String(decoding: received, as: UTF8.self))
                }
                if n > 0 { received.append(contentsOf: buffer[0..<n]) }
            }
            return (false, String(decoding: received, as: UTF8.self))
        }
    }
}

/// The status code of the first status line in `raw`, e.g. 413 for `"HTTP/1.1 413 Payload Too Large…"`.
func statusCode(_ raw: String) -> Int? {
    guard raw.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(raw.dropFirst(9).prefix(3))
}

/// Runs blocking work (a socket call, a child process) on a thread of its own, never on Swift's cooperative
/// pool: a blocked pool thread could be the one a server's handler needs to answer.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// ``offPool(_:)`` for work that cannot fail.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
