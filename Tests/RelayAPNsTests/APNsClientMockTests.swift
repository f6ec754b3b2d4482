import APNsCore
import APNsMock
import Foundation
import RelayAPNs
import RelayCore
import RelayCrypto
import RelayCurl
import Testing

/// The client against the real mock APNs over TLS HTTP/2 (and h2c), in-process on port 0.
@Suite struct APNsClientMockTests {
    static let fixtures = ProviderTokenTests.fixtures
    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    static func startMock(
        tls: Bool = true,
        clientCA: Bool = false,
        environment: APNsEnvironment = .production,
        timeSource: any TimeSource = SystemTimeSource(),
        script: MockScript = MockScript()
    ) throws -> MockAPNsServer {
        let publicKey = try ProviderTokenTests.publicKey()
        let server = MockAPNsServer(
            configuration: MockAPNsConfiguration(
                tls: tls
                    ? .init(
                        certificatePath: fixture("tls/server.pem"),
                        privateKeyPath: fixture("tls/server.key"),
                        clientCAPath: clientCA ? fixture("tls/ca.pem") : nil
                    ) : nil,
                providerKeys: ["ABC123DEFG": (teamId: "TEAM123456", key: publicKey)],
                environment: environment,
                timeSource: timeSource,
                script: script
            )
        )
        try server.start()
        return server
    }

    static func client(
        _ mock: MockAPNsServer,
        tls: Bool = true,
        authentication: APNsClientConfiguration.Authentication? = nil,
        requestTimeout: Duration = .seconds(20),
        connections: Int = 2,
        maxInFlight: Int = 1000,
        caFile: String? = fixture("tls/ca.pem")
    ) throws -> APNsClient {
        let base = tls ? "https://127.0.0.1:\(mock.port)" : "http://127.0.0.1:\(mock.port)"
        var configuration = APNsClientConfiguration(
            endpoint: .custom(baseURL: base, caFile: caFile),
            authentication: authentication
                ?? .token(key: ProviderTokenTests.keyPath, keyId: "ABC123DEFG", teamId: "TEAM123456")
        )
        configuration.requestTimeout = requestTimeout
        configuration.connections = connections
        configuration.maxInFlight = maxInFlight
        return try APNsClient(configuration: configuration)
    }

    static func deviceToken(_ index: Int) -> DeviceToken {
        try! DeviceToken(parsing: String(format: "%064x", index + 1))
    }

    static func notification(_ index: Int, topic: String = "com.example.chat") -> APNsNotification {
        APNsNotification(
            deviceToken: deviceToken(index),
            topic: topic,
            collapseId: "room-\(index)",
            payload: Data(#"{"aps":{"alert":"message \#(index)"},"dittoChatRoomId":"r"}"#.utf8)
        )
    }

    @Test func aThousandConcurrentSendsShareTheConnectionsAndOneProviderToken() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let client = try Self.client(mock)
        let notifications = (0..<1000).map { Self.notification($0) }
        let responses = try await withThrowingTaskGroup(of: (Int, APNsResponse).self) { group in
            for (index, notification) in notifications.enumerated() {
                group.addTask { (index, try await client.send(notification)) }
            }
            return try await group.reduce(into: [Int: APNsResponse]()) { $0[$1.0] = $1.1 }
        }
        await client.shutdown()
        #expect(responses.count == 1000)
        #expect(responses.values.allSatisfy { $0.status == 200 })
        for (index, response) in responses { #expect(response.apnsId == notifications[index].apnsIdHeader) }

        try Self.checkRecorded(mock.requests, acceptedConnections: mock.acceptedConnections, sent: notifications)
    }

    /// Synchronous, so the async test stays small (Swift 6.3's optimizer crashed splitting it in release).
    static func checkRecorded(
        _ recorded: [RecordedRequest],
        acceptedConnections: Int,
        sent notifications: [APNsNotification]
    )
        throws
    {
        #expect(recorded.count == 1000)
        // The pool's two connections, neither reopened.
        #expect(Set(recorded.map(\.connectionId)).count == 2)
        #expect(acceptedConnections == 2)
        let authorizations = Set(recorded.compactMap { $0.header("authorization") })
        #expect(authorizations.count == 1)
        let jwt = try JSONWebToken(parsing: #require(authorizations.first).dropFirst("bearer ".count).description)
        #expect(jwt.verify(with: try ProviderTokenTests.publicKey()))
        #expect(jwt.header.kid == "ABC123DEFG" && jwt.claims.iss == "TEAM123456")

        let byId = Dictionary(uniqueKeysWithValues: notifications.map { ($0.apnsIdHeader, $0) })
        for request in recorded {
            let sent = try #require(byId[request.header("apns-id") ?? ""])
            #expect(request.method == "POST")
            #expect(request.path == "/3/device/" + sent.deviceToken.hex)
            #expect(request.header("apns-topic") == "com.example.chat")
            #expect(request.header("apns-push-type") == "alert")
            #expect(request.header("apns-priority") == "10")
            #expect(request.header("apns-collapse-id") == sent.collapseId)
            #expect(request.header("content-type") == "application/json")
            #expect(request.header("apns-expiration") == nil)
            #expect(request.body == sent.payload)
        }
    }

    @Test func errorAnswersMapToTheModel() async throws {
        let script = MockScript(devices: [
            .init(token: Self.deviceToken(1).hex, status: 410, reason: "Unregistered", timestamp: 1_700_000_000_000),
            .init(token: Self.deviceToken(2).hex, status: 400, reason: "BadDeviceToken"),
            .init(token: Self.deviceToken(3).hex, status: 429, reason: "TooManyRequests"),
            .init(token: Self.deviceToken(4).hex, status: 503, reason: "ServiceUnavailable"),
        ])
        let mock = try Self.startMock(script: script)
        defer { mock.stop() }
        let client = try Self.client(mock)
        let gone = try await client.send(Self.notification(1))
        #expect(gone.status == 410)
        #expect(gone.reason == .unregistered)
        let timestamp = try #require(gone.timestamp)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        #expect(utc.component(.year, from: timestamp) == 2023)
        #expect(timestamp.timeIntervalSince1970 == 1_700_000_000)
        #expect(try await client.send(Self.notification(2)).reason == .badDeviceToken)
        let tooMany = try await client.send(Self.notification(3))
        #expect(tooMany.status == 429 && tooMany.reason == .tooManyRequests)
        let unavailable = try await client.send(Self.notification(4))
        #expect(unavailable.status == 503 && unavailable.reason == .serviceUnavailable)
        let ok = try await client.send(Self.notification(5))
        #expect(ok.isAccepted && ok.reason == nil)
        await client.shutdown()
    }

    @Test func theSandboxAnswersWithAnApnsUniqueId() async throws {
        let mock = try Self.startMock(environment: .sandbox)
        defer { mock.stop() }
        let client = try Self.client(mock)
        let response = try await client.send(Self.notification(0))
        #expect(response.isAccepted)
        #expect(response.apnsUniqueId != nil)
        await client.shutdown()
    }

    @Test func aNeverAnsweredStreamFailsAtItsDeadlineWhileTheOthersComplete() async throws {
        let script = MockScript(devices: [.init(token: Self.deviceToken(0).hex, neverAnswer: true)])
        let mock = try Self.startMock(script: script)
        defer { mock.stop() }
        let client = try Self.client(mock, requestTimeout: .seconds(2))
        // Authenticate the connection first so the mock grants more than one stream.
        #expect(try await client.send(Self.notification(99)).isAccepted)
        let results = await withTaskGroup(of: (Int, Result<APNsResponse, any Error>).self) { group in
            for index in 0..<20 {
                group.addTask {
                    do { return (index, .success(try await client.send(Self.notification(index)))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<APNsResponse, any Error>]()) { $0[$1.0] = $1.1 }
        }
        await client.shutdown()
        guard case .failure(let error) = results[0] else {
            Issue.record("the never-answered request returned")
            return
        }
        #expect((error as? TransportError)?.code == .timeout)
        for index in 1..<20 {
            guard case .success(let response) = results[index] else {
                Issue.record("request \(index) failed")
                continue
            }
            #expect(response.isAccepted)
        }
        // The pool's two connections: the stuck stream broke neither.
        #expect(mock.acceptedConnections == 2)
    }

    @Test func localRefusalsNeverReachTheMock() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let client = try Self.client(mock)
        var empty = Self.notification(0)
        empty.payload = Data()
        await #expect(throws: NotificationError.self) { try await client.send(empty) }
        var background = Self.notification(1)
        background.pushType = .background
        await #expect(throws: NotificationError.self) { try await client.send(background) }
        await #expect(throws: NotificationError.self) { try await client.send(Self.notification(2, topic: "")) }
        #expect(try await client.send(Self.notification(3)).isAccepted)
        // A valid payload is remembered, so the next send of the same bytes is not parsed again; other bytes
        // still are.
        var array = Self.notification(4)
        array.payload = Data("[1]".utf8)
        await #expect(throws: NotificationError(reason: .payloadEmpty, message: "payload is not a JSON object")) {
            try await client.send(array)
        }
        #expect(try await client.send(Self.notification(5)).isAccepted)
        await client.shutdown()
        #expect(mock.answeredCount == 2)
        #expect(mock.requests.map(\.path) == [3, 5].map { "/3/device/" + Self.deviceToken($0).hex })
    }

    @Test func h2cWithPriorKnowledgeWorks() async throws {
        let mock = try Self.startMock(tls: false)
        defer { mock.stop() }
        let client = try Self.client(mock, tls: false)
        #expect(try await client.send(Self.notification(0)).isAccepted)
        await client.shutdown()
    }

    @Test(arguments: [
        APNsClientConfiguration.Authentication.certificate(
            certificatePath: fixture("tls/client.p12"),
            keyPath: nil,
            password: "test"
        ),
        .certificate(certificatePath: fixture("tls/client.pem"), keyPath: fixture("tls/client.key"), password: nil),
    ])
    func certificateAuthenticationNeedsNoProviderToken(
        authentication: APNsClientConfiguration.Authentication
    )
        async throws
    {
        let mock = try Self.startMock(clientCA: true)
        defer { mock.stop() }
        let client = try Self.client(mock, authentication: authentication)
        #expect(client.providerToken == nil)
        let response = try await client.send(Self.notification(0))
        #expect(response.isAccepted)
        await client.shutdown()
        #expect(mock.requests.first?.header("authorization") == nil)
    }

    @Test func aTokenFromAnUnknownKeyIsAnAPNsAnswerNotATransportError() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let client = try Self.client(
            mock,
            authentication: .token(
                key: Self.fixture("keys/AuthKey_XYZ987WXYZ.p8"),
                keyId: "XYZ987WXYZ",
                teamId: "TEAM123456"
            )
        )
        let response = try await client.send(Self.notification(0))
        #expect(response.status == 403)
        #expect(response.reason == .invalidProviderToken)
        await client.shutdown()
    }

    @Test func refusedStreamsAndGoAwayAreResentAndSucceed() async throws {
        let script = MockScript(connections: [
            .init(connection: .index(1), refuseRequests: [2, 3]),
            .init(connection: .index(1), goAway: .init(afterRequests: 5, reason: "Shutdown")),
        ])
        let mock = try Self.startMock(script: script)
        defer { mock.stop() }
        let logs = MemoryLogHandler()
        var configuration = APNsClientConfiguration(
            endpoint: .custom(baseURL: "https://127.0.0.1:\(mock.port)", caFile: Self.fixture("tls/ca.pem")),
            authentication: .token(key: ProviderTokenTests.keyPath, keyId: "ABC123DEFG", teamId: "TEAM123456")
        )
        configuration.logger = Logger(label: "test", level: .debug, handler: logs)
        let client = try APNsClient(configuration: configuration)
        #expect(try await client.send(Self.notification(100)).isAccepted)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<30 { group.addTask { try await client.send(Self.notification(index)).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        await client.shutdown()
        #expect(statuses == Array(repeating: 200, count: 30))
        #expect(mock.acceptedConnections >= 2)
        // Every notification reached the mock and was accepted exactly once: streams above the GOAWAY's
        // last-stream-id are refused, not answered, and libcurl resends them on a new connection.
        let accepted = mock.requests.filter { $0.status == 200 }.compactMap { $0.header("apns-id") }
        #expect(Set(accepted).count == 31)
        #expect(accepted.count == 31)
        #expect(logs.entries.allSatisfy { $0.level < .error })
    }

    @Test func aServerCertificateFromAnUntrustedCAIsATLSError() async throws {
        let mock = try Self.startMock()
        let client = try Self.client(mock, caFile: nil)  // the system store does not know the test CA
        let error = await #expect(throws: TransportError.self) { try await client.send(Self.notification(0)) }
        #expect(error?.code == .tls)
        await client.shutdown()
        #expect(mock.answeredCount == 0)
        mock.stop()
    }

    @Test func anExpiredProviderTokenIsAnAnswerTheRelayCanActOn() async throws {
        // The mock's clock runs 61 minutes ahead of the client's: the client's fresh token looks expired.
        let mock = try Self.startMock(timeSource: ManualTimeSource(now: Date() + 61 * 60))
        let token = try ProviderToken(
            keyPEMOrPath: ProviderTokenTests.keyPath,
            keyId: "ABC123DEFG",
            teamId: "TEAM123456",
            timeSource: ManualTimeSource(now: Date())
        )
        let client = try Self.client(mock, authentication: .providerToken(token))
        let response = try await client.send(Self.notification(0))
        #expect(response.status == 403)
        #expect(response.reason == .expiredProviderToken)
        // Minted a moment ago by our own clocks: replacing it now would earn a 429, so it is kept.
        #expect(token.invalidate() == false)
        await client.shutdown()
        mock.stop()
    }

    /// A send cancelled while a submitted push waits for its connection hands the connection on: the push
    /// waiting is not the cancelled task's and is sent, not failed with the other task's cancellation.
    @Test func aSubmittedPushTakesTheConnectionOfACancelledSend() async throws {
        let script = MockScript(devices: [.init(token: Self.deviceToken(0).hex, neverAnswer: true)])
        let mock = try Self.startMock(script: script)
        defer { mock.stop() }
        let client = try Self.client(mock, requestTimeout: .seconds(600), connections: 1, maxInFlight: 1)
        #expect(try await client.send(Self.notification(50)).isAccepted)
        let stuck = Task { try await client.send(Self.notification(0)) }
        let deadline = ContinuousClock.now + .seconds(20)
        while client.poolCounts.inFlight == 0 {
            try #require(ContinuousClock.now < deadline, "the stuck send never took the connection")
            try await Task.sleep(for: .milliseconds(5))
        }
        let submitted = Task {
            try await withCheckedThrowingContinuation { continuation in
                client.submit(Self.notification(1)) { continuation.resume(with: $0) }
            }
        }
        while client.poolCounts.waiting == 0 {
            try #require(ContinuousClock.now < deadline, "the submitted push never waited for room")
            try await Task.sleep(for: .milliseconds(5))
        }
        stuck.cancel()
        await #expect(throws: CancellationError.self) { try await stuck.value }
        #expect(try await submitted.value.status == 200)
        await client.shutdown()
    }

    @Test func cancellingANeverAnsweredSendLeavesTheOthersAlone() async throws {
        let script = MockScript(devices: [.init(token: Self.deviceToken(0).hex, neverAnswer: true)])
        let mock = try Self.startMock(script: script)
        let client = try Self.client(mock, requestTimeout: .seconds(600))
        #expect(try await client.send(Self.notification(50)).isAccepted)
        let stuck = Task { try await client.send(Self.notification(0)) }
        let others = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 1...10 { group.addTask { try await client.send(Self.notification(index)).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        #expect(try await others.value == Array(repeating: 200, count: 10))
        // Both pool connections are open before the cancel (the second one's first request may be the stuck
        // send, whose connection libcurl may still be opening when the others are answered).
        let opened = ContinuousClock.now + .seconds(10)
        while mock.acceptedConnections < 2, ContinuousClock.now < opened { try await Task.sleep(for: .milliseconds(5)) }
        stuck.cancel()
        await #expect(throws: CancellationError.self) { try await stuck.value }
        // Shutdown returns only once no transfer is left: the cancelled stream was removed from libcurl.
        await client.shutdown()
        #expect(mock.acceptedConnections == 2)
        mock.stop()
    }
}
