import Foundation

/// A blocking loopback TCP socket for feeding the server raw bytes. Test-only.
final class RawSocket {
    let fd: Int32

    struct Failure: Error {}

    /// The descriptor is `self.fd` only once connected: a throwing initializer whose properties are all set
    /// still runs `deinit`, and a second `close` of a number another thread reuses would close its socket.
    init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure()
        }
        self.fd = fd
    }

    deinit { close(fd) }

    func write(_ data: Data) {
        data.withUnsafeBytes { _ = send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes or resets; returns the bytes read, or -1 when the 5 s timeout passed first.
    func readUntilClosed() -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return total }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : total }
            total += count
        }
    }
}
