import APNsMock
import Foundation
import RelayAPNs
import RelayCore
import RelayCurl
import Synchronization
import Testing

/// The client's connection pool against the real mock APNs over TLS HTTP/2: how requests spread over the
/// connections, the server's stream limit, a cold connection that is slow to answer, a dropped connection,
/// and shutdown.
@Suite struct APNsConnectionPoolTests {
    typealias Mock = APNsClientMockTests

    /// Sends notifications `indices` at once; each result is the answer's status or the transport error.
    static func sendAll(
        _ client: APNsClient,
        _ indices: Range<Int>
    ) async -> [Int: Result<Int, TransportError>] {
        await withTaskGroup(of: (Int, Result<Int, TransportError>).self) { group in
            for index in indices {
                group.addTask {
                    do { return (index, .success(try await client.send(Mock.notification(index)).status)) } catch {
                        let failure = error as? TransportError ?? TransportError(code: .other, message: "\(error)")
                        return (index, .failure(failure))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    /// Two sends one after the other: the first proves the token on connection 1, the second on connection 2
    /// (an idle cold connection takes the next request as its probe).
    static func warmBoth(_ client: APNsClient) async throws {
        #expect(try await client.send(Mock.notification(10_000)).isAccepted)
        #expect(try await client.send(Mock.notification(10_001)).isAccepted)
    }

    @Test func requestsSpreadOverTheWarmConnections() async throws {
        let mock = try Mock.startMock(script: MockScript(devices: [.init(token: "*", delayMs: 20)]))
        defer { mock.stop() }
        let client = try Mock.client(mock, connections: 2)
        try await Self.warmBoth(client)
        let results = await Self.sendAll(client, 0..<200)
        await client.shutdown()
        #expect(results.values.allSatisfy { (try? $0.get()) == 200 })
        let tokens = Set((0..<200).map { Mock.deviceToken($0).hex })
        let burst = mock.requests.filter { tokens.contains($0.deviceToken ?? "") }
        #expect(burst.count == 200)
        let byConnection = Dictionary(grouping: burst, by: \.connectionId).mapValues(\.count)
        #expect(byConnection.count == 2)
        // The least loaded warm connection takes each request: neither carries much more than half.
        #expect(byConnection.values.allSatisfy { $0 >= 60 }, "\(byConnection)")
        #expect(mock.acceptedConnections == 2)
        // One provider token for the whole pool.
        #expect(Set(mock.requests.compactMap { $0.header("authorization") }).count == 1)
    }

    @Test func noConnectionCarriesMoreStreamsThanTheServerAllows() async throws {
        let script = MockScript(
            devices: [.init(token: "*", delayMs: 30)],
            connections: [.init(connection: .all, maxConcurrentStreams: .init(value: 3))]
        )
        let mock = try Mock.startMock(script: script)
        defer { mock.stop() }
        let client = try Mock.client(mock, connections: 2)
        try await Self.warmBoth(client)
        let results = await Self.sendAll(client, 0..<60)
        await client.shutdown()
        // Nothing refused or reset: libcurl kept each connection within the 3 streams the server allows.
        #expect(results.values.allSatisfy { (try? $0.get()) == 200 }, "\(results.values)")
        let recorded = mock.requests
        #expect(recorded.count == 62)
        #expect(Set(recorded.compactMap { $0.header("apns-id") }).count == 62)
        let peaks = Dictionary(grouping: recorded, by: \.connectionId).mapValues { $0.map(\.openStreams).max() ?? 0 }
        // Two connections only: libcurl held what did not fit until a stream closed, and opened no third.
        #expect(peaks.count == 2)
        #expect(mock.acceptedConnections == 2)
        // Both connections used all the room they had, and never more.
        #expect(peaks.values.allSatisfy { $0 == 3 }, "\(peaks)")
    }

    /// The first request of the first connection waits 10 s for its answer; the others go out meanwhile on
    /// the second connection instead of queueing behind it.
    @Test func aColdConnectionSlowToAnswerHoldsUpOnlyItsProbe() async throws {
        let slow = Mock.deviceToken(0).hex
        let mock = try Mock.startMock(script: MockScript(devices: [.init(token: slow, delayMs: 10_000, count: 1)]))
        defer { mock.stop() }
        let client = try Mock.client(mock, requestTimeout: .seconds(60), connections: 2)
        let slowAnswered = Flag()
        let probe = Task {
            let response = try await client.send(Mock.notification(0))
            slowAnswered.value.store(true, ordering: .sequentiallyConsistent)
            return response.status
        }
        // The slow request is the pool's first: wait until its connection is up.
        let deadline = ContinuousClock.now + .seconds(20)
        while mock.acceptedConnections == 0 {
            try #require(ContinuousClock.now < deadline, "the probe never connected")
            try await Task.sleep(for: .milliseconds(5))
        }
        let results = await Self.sendAll(client, 1..<41)
        // Forty pushes answered while the slow one is still pending, all on the other connection.
        let slowWasAnswered = slowAnswered.value.load(ordering: .sequentiallyConsistent)
        #expect(!slowWasAnswered)
        #expect(results.values.allSatisfy { (try? $0.get()) == 200 }, "\(results.values)")
        let answered = mock.requests
        #expect(answered.count == 40)
        #expect(!answered.contains { $0.deviceToken == slow })
        #expect(Set(answered.map(\.connectionId)).count == 1)
        #expect(try await probe.value == 200)
        #expect(mock.requests.first { $0.deviceToken == slow }.map { $0.connectionId } != answered.first?.connectionId)
        await client.shutdown()
    }

    /// The mock closes connection 1 after its third answer: each request on it fails as a transport error, as
    /// a single connection's would (or libcurl resends it on a new connection), and the pool reconnects for
    /// the next ones.
    @Test func aDroppedConnectionsRequestsAreReportedAndThePoolCarriesOn() async throws {
        let mock = try Mock.startMock(
            script: MockScript(
                devices: [.init(token: "*", delayMs: 20)],
                connections: [.init(connection: .index(1), dropAfterRequests: 3)]
            )
        )
        defer { mock.stop() }
        let client = try Mock.client(mock, connections: 2)
        try await Self.warmBoth(client)
        let first = await Self.sendAll(client, 0..<40)
        for result in first.values {
            switch result {
            case .success(let status): #expect(status == 200)
            case .failure(let error): #expect([.reset, .refused].contains(error.code), "\(error)")
            }
        }
        let second = await Self.sendAll(client, 100..<140)
        await client.shutdown()
        #expect(second.values.allSatisfy { (try? $0.get()) == 200 }, "\(second.values)")
        // Connection 1 was opened again.
        #expect(mock.acceptedConnections >= 3)
    }

    @Test func shutdownEndsEveryConnectionsThread() async throws {
        let mock = try Mock.startMock()
        defer { mock.stop() }
        let client = try Mock.client(mock, connections: 3)
        #expect(try await client.send(Mock.notification(0)).isAccepted)
        let threads = client.runningThreadIds
        #expect(threads.count == 3)
        #expect(threads.allSatisfy { Self.threadExists($0) })
        // Two at once: each returns only once every driver has freed its handles.
        async let first: Void = client.shutdown()
        await client.shutdown()
        await first
        #expect(client.runningThreadIds.isEmpty)
        // The threads return from their loop before the OS thread is gone: wait a little for the exit.
        let deadline = ContinuousClock.now + .seconds(10)
        while threads.contains(where: Self.threadExists), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!threads.contains(where: Self.threadExists))
        let error = await #expect(throws: TransportError.self) { try await client.send(Mock.notification(1)) }
        #expect(error?.code == .shutdown)
    }

    /// A flag a task sets and the test reads.
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Whether this process has a thread with Linux thread id `tid`.
    static func threadExists(_ tid: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)")
    }
}
