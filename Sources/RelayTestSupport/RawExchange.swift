#if canImport(Glibc)
    import Glibc
#endif

/// What one ``rawExchange(port:_:timeoutSeconds:)`` received, and the call that ended it early with its
/// `errno` (`nil` when the server closed the connection or the timeout passed between reads).
public struct RawExchangeOutcome: Sendable {
    public var received: String
    public var failure: String?
}

/// One request written byte for byte on a fresh plain TCP connection to 127.0.0.1:`port`, reading until the
/// server closes it or `timeoutSeconds` pass between reads: for requests an HTTP client library would not send
/// (made-up methods, an announced body never sent). Blocking: call it off Swift's cooperative pool.
/// - Returns: everything received, as text; empty when the connection could not be made.
public func rawExchange(port: Int, _ request: String, timeoutSeconds: Int = 10) -> String {
    rawExchangeOutcome(port: port, request, timeoutSeconds: timeoutSeconds).received
}

/// ``rawExchange(port:_:timeoutSeconds:)`` with the failed call, if one ended it, for a test's message.
public func rawExchangeOutcome(port: Int, _ request: String, timeoutSeconds: Int = 10) -> RawExchangeOutcome {
    func failed(_ call: String, _ received: [UInt8] = []) -> RawExchangeOutcome {
        let code = errno
        return RawExchangeOutcome(
            received: String(decoding: received, as: UTF8.self),
            failure: "\(call): errno \(code) (\(String(cString: strerror(code))))"
        )
    }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return failed("socket") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return failed("connect") }
    let bytes = Array(request.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return failed("send") }
        offset += n
    }
    var received = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n < 0, errno != EAGAIN, errno != EWOULDBLOCK { return failed("recv", received) }
        if n <= 0 { break }
        received += buffer[0..<n]
    }
    return RawExchangeOutcome(received: String(decoding: received, as: UTF8.self), failure: nil)
}
