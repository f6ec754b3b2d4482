import APNsCore
import Foundation
import Glibc
import RelayAPNs
import RelayCore
import RelayCurl
import Testing

/// The client against sockets that are closed or never answer: no HTTP/2 server needed.
@Suite struct APNsClientTransportTests {
    static let token = try! DeviceToken(parsing: String(repeating: "ab", count: 32))

    static func notification(topic: String = "com.example.chat", collapseId: String? = nil) -> APNsNotification {
        APNsNotification(
            deviceToken: token,
            topic: topic,
            collapseId: collapseId,
            payload: Data(#"{"aps":{"alert":"hi"}}"#.utf8)
        )
    }

    static func client(
        baseURL: String,
        requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10),
        maxInFlight: Int = 1000
    ) throws -> APNsClient {
        var configuration = APNsClientConfiguration(
            endpoint: .custom(baseURL: baseURL, caFile: nil),
            authentication: .token(key: ProviderTokenTests.keyPath, keyId: "ABC123DEFG", teamId: "TEAM123456")
        )
        configuration.requestTimeout = requestTimeout
        configuration.connectTimeout = connectTimeout
        configuration.maxInFlight = maxInFlight
        return try APNsClient(configuration: configuration)
    }

    @Test func aLocallyRefusedNotificationThrowsNotificationErrorAndNeverConnects() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let client = try Self.client(baseURL: "http://127.0.0.1:\(port)")
        await #expect(throws: NotificationError(reason: .missingTopic, message: "apns-topic is empty")) {
            try await client.send(Self.notification(topic: ""))
        }
        let tooLong = String(repeating: "x", count: 65)
        await #expect(throws: NotificationError.self) {
            try await client.send(Self.notification(collapseId: tooLong))
        }
        await #expect(throws: NotificationError.self) {
            try await client.send(Self.notification(collapseId: "a\r\nauthorization: x"))
        }
        await client.shutdown()
    }

    @Test func aClosedPortIsAConnectError() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let client = try Self.client(baseURL: "http://127.0.0.1:\(port)")
        let error = await #expect(throws: TransportError.self) { try await client.send(Self.notification()) }
        #expect(error?.code == .connect)
        #expect(error?.curlCode == 7)
        await client.shutdown()
    }

    @Test func aServerThatNeverAnswersFailsAtTheDeadlineWithTimeout() async throws {
        let server = try SilentServer()
        let client = try Self.client(baseURL: "http://127.0.0.1:\(server.port)", requestTimeout: .milliseconds(300))
        let error = await #expect(throws: TransportError.self) { try await client.send(Self.notification()) }
        #expect(error?.code == .timeout)
        await client.shutdown()
    }

    @Test func aTLSServerThatNeverHandshakesFailsWithTimeout() async throws {
        let server = try SilentServer()
        let client = try Self.client(
            baseURL: "https://127.0.0.1:\(server.port)",
            requestTimeout: .seconds(30),
            connectTimeout: .milliseconds(300)
        )
        let error = await #expect(throws: TransportError.self) { try await client.send(Self.notification()) }
        #expect(error?.code == .timeout)
        await client.shutdown()
    }

    @Test func requestsQueuedBeyondMaxInFlightAlsoFailAtTheirDeadline() async throws {
        let server = try SilentServer()
        let client = try Self.client(
            baseURL: "http://127.0.0.1:\(server.port)",
            requestTimeout: .milliseconds(300),
            maxInFlight: 1
        )
        let codes = await withTaskGroup(of: TransportError.Code?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await client.send(Self.notification())
                        return nil
                    } catch { return (error as? TransportError)?.code }
                }
            }
            return await group.reduce(into: [TransportError.Code?]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: .timeout, count: 5))
        await client.shutdown()
    }

    @Test func cancellationResumesTheCallerAndDropsTheTransfer() async throws {
        let server = try SilentServer()
        // A long deadline: only cancellation can end the send (and let shutdown return) in reasonable time.
        let client = try Self.client(baseURL: "http://127.0.0.1:\(server.port)", requestTimeout: .seconds(600))
        let tasks = (0..<3).map { _ in Task { try await client.send(Self.notification()) } }
        try await Task.sleep(for: .milliseconds(100))
        for task in tasks { task.cancel() }
        for task in tasks {
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        await client.shutdown()
    }

    @Test func anAlreadyCancelledTaskNeverSends() async throws {
        let server = try SilentServer()
        let client = try Self.client(baseURL: "http://127.0.0.1:\(server.port)", requestTimeout: .seconds(600))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(Self.notification())
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        await client.shutdown()
    }

    @Test func afterShutdownSendThrowsShutdown() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let client = try Self.client(baseURL: "http://127.0.0.1:\(port)")
        await client.shutdown()
        await client.shutdown()
        let error = await #expect(throws: TransportError.self) { try await client.send(Self.notification()) }
        #expect(error?.code == .shutdown)
    }

    @Test func shutdownLetsInFlightRequestsFinish() async throws {
        let server = try SilentServer()
        // Long enough that a loaded machine still connects before the request's own deadline.
        let client = try Self.client(baseURL: "http://127.0.0.1:\(server.port)", requestTimeout: .seconds(3))
        let task = Task { try await client.send(Self.notification()) }
        // Connected means the driver took the request; only then is shutdown asked for.
        #expect(await server.hasPendingConnection())
        await client.shutdown()
        // The request was taken before shutdown, so it ran to its own end (a timeout), not `.shutdown`.
        let error = await #expect(throws: TransportError.self) { try await task.value }
        #expect(error?.code == .timeout)
    }

    @Test func droppingTheClientWithoutShutdownIsSafe() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        var client: APNsClient? = try Self.client(baseURL: "http://127.0.0.1:\(port)")
        _ = try? await client?.send(Self.notification())
        client = nil
        #expect(client == nil)
    }

    @Test func anUnusableConfigurationReportsEveryProblem() throws {
        var configuration = APNsClientConfiguration(
            endpoint: .custom(baseURL: "ftp://x/", caFile: nil),
            authentication: .token(key: ProviderTokenTests.keyPath, keyId: "", teamId: "TEAM123456")
        )
        configuration.maxInFlight = 0
        configuration.connections = 0
        configuration.requestTimeout = .zero
        let error = #expect(throws: APNsConfigurationError.self) { try APNsClient(configuration: configuration) }
        #expect(error?.problems.count == 6)
    }

    @Test func aMissingCertificateFileIsAConfigurationError() {
        let configuration = APNsClientConfiguration(
            endpoint: .sandbox,
            authentication: .certificate(certificatePath: "/nonexistent/cert.p12", keyPath: nil, password: "x")
        )
        let error = #expect(throws: APNsConfigurationError.self) { try APNsClient(configuration: configuration) }
        #expect(error?.problems == ["certificate file /nonexistent/cert.p12 is not readable"])
    }

    @Test func libcurlHasHTTP2() {
        let info = LibcurlInfo.current
        #expect(info.hasHTTP2)
        #expect(info.isAtLeast8)
        #expect(info.nghttp2Version != nil)
        #expect(info.summary.hasPrefix("libcurl \(info.version) (HTTP/2 via nghttp2"))
    }
}

/// A loopback TCP socket that listens (the kernel completes handshakes) but never reads or answers.
final class SilentServer: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        (fd, port) = try bindLoopback(listen: true)
    }

    deinit { close(fd) }

    /// True once a client's connection waits in the listen queue (the socket polls readable), within
    /// `seconds`. The poll blocks a thread of its own, never one of the cooperative pool: on two cores the
    /// pool has two threads, and the send being waited for needs one of them.
    func hasPendingConnection(within seconds: Int32 = 10) async -> Bool {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                continuation.resume(returning: poll(&entry, 1, seconds * 1000) == 1)
            }.start()
        }
    }
}

/// A loopback port nothing listens on: bound, then closed.
/// A loopback port nothing listens on, held while this lives: bound but never listening, so connecting is
/// refused and no other test can take the port meanwhile.
final class ClosedPort: Sendable {
    let fd: Int32
    let port: Int
    init() throws { (fd, port) = try bindLoopback(listen: false) }
    deinit { close(fd) }
}

struct SocketError: Error { var call: String }

/// Binds a TCP socket to 127.0.0.1, port 0; returns it and the port the kernel chose.
func bindLoopback(listen shouldListen: Bool) throws -> (Int32, Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketError(call: "socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else {
        close(fd)
        throw SocketError(call: "bind")
    }
    if shouldListen, listen(fd, 64) != 0 {
        close(fd)
        throw SocketError(call: "listen")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else {
        close(fd)
        throw SocketError(call: "getsockname")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
