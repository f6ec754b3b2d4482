import APNsMock
import Foundation
import RelayCore
import Testing

@Suite struct ScriptTests {
    let path = "/3/device/" + MockFixtures.token

    func server(_ script: MockScript, time: any TimeSource = SystemTimeSource()) throws -> MockAPNsServer {
        try MockFixtures.start(.init(authentication: .disabled, timeSource: time, script: script))
    }

    func send(
        _ client: CurlH2Client,
        token: String = MockFixtures.token,
        timeout: Int = 10_000
    )
        -> CurlH2Client.Response
    {
        client.send(
            path: "/3/device/" + token,
            headers: [MockFixtures.topic],
            body: MockFixtures.payload,
            timeoutMilliseconds: timeout
        )
    }

    @Test func a410CarriesATimestampInMilliseconds() throws {
        let time = ManualTimeSource()
        let server = try server(
            MockScript(devices: [
                .init(token: MockFixtures.token, status: 410, reason: "Unregistered"),
                .init(
                    token: MockFixtures.otherToken,
                    status: 410,
                    reason: "ExpiredToken",
                    timestamp: 1_700_000_000_123
                ),
            ]),
            time: time
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        let first = send(client)
        #expect(first.status == 410)
        #expect(first.reason == "Unregistered")
        #expect((first.json?["timestamp"] as? NSNumber)?.int64Value == 1_800_000_000_000)
        let second = send(client, token: MockFixtures.otherToken)
        #expect(second.reason == "ExpiredToken")
        #expect((second.json?["timestamp"] as? NSNumber)?.int64Value == 1_700_000_000_123)
    }

    @Test func aCountedRuleFailsTheFirstRequestsThenFallsThrough() throws {
        let server = try server(
            MockScript(devices: [.init(token: "*", status: 503, reason: "ServiceUnavailable", count: 2)])
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        let statuses = (0..<3).map { _ in send(client).status }
        #expect(statuses == [503, 503, 200])
        #expect(server.requests.map(\.reason) == ["ServiceUnavailable", "ServiceUnavailable", nil])
    }

    @Test func delayedAndNeverAnsweredRequests() throws {
        let server = try server(
            MockScript(devices: [
                .init(token: MockFixtures.token, delayMs: 50),
                .init(token: MockFixtures.otherToken, neverAnswer: true),
            ])
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client).status == 200)
        let unanswered = send(client, token: MockFixtures.otherToken, timeout: 300)
        #expect(unanswered.curlCode == 28)  // CURLE_OPERATION_TIMEDOUT
        #expect(unanswered.status == 0)
        #expect(server.answeredCount == 1)
    }

    @Test func theScriptCanChangeWhileRunning() throws {
        let server = try server(MockScript())
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client).status == 200)
        server.script = MockScript(devices: [.init(token: MockFixtures.token, status: 400, reason: "BadDeviceToken")])
        #expect(send(client).status == 400)
        server.updateScript { $0.devices.removeAll() }
        #expect(send(client).status == 200)
    }

    @Test func goAwayAfterTheFirstRequestMakesTheClientReconnect() throws {
        let server = try server(
            MockScript(connections: [.init(connection: .next, goAway: .init(afterRequests: 1, reason: "Shutdown"))])
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client).status == 200)
        #expect(send(client).status == 200)
        #expect(server.acceptedConnections == 2)
        #expect(server.requests.map(\.connectionId) == [1, 2])
    }

    @Test func aGoAwayAddedWhileRunningActsOnTheOpenConnection() async throws {
        let server = try server(MockScript())
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client).status == 200)
        server.updateScript {
            $0.connections.append(.init(connection: .index(1), goAway: .init(afterRequests: 0, reason: "Shutdown")))
        }
        // The mock closes connection 1 once its GOAWAY is out; the next request needs a new connection.
        #expect(send(client).status == 200)
        #expect(server.acceptedConnections == 2)
        #expect(server.requests.map(\.connectionId) == [1, 2])
    }

    @Test func aRefusedStreamIsNotProcessedAndTheClientRetries() throws {
        let server = try server(MockScript(connections: [.init(connection: .index(1), refuseRequests: [1])]))
        defer { server.stop() }
        let response = send(CurlH2Client(port: server.port))
        // libcurl resends a REFUSED_STREAM request once on a new connection (RFC 9113 §8.7).
        #expect(response.status == 200)
        #expect(server.acceptedConnections == 2)
        #expect(server.requests.map(\.connectionId) == [2])
    }

    @Test func aDroppedConnectionIsSeenByTheClient() throws {
        let server = try server(MockScript(connections: [.init(connection: .all, dropAfterRequests: 1)]))
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client).status == 200)
        // Whether libcurl notices the closed connection before reusing it is a race: either the request
        // fails with a connection error, or libcurl already reconnected.
        let second = send(client)
        if second.status != 200 {
            #expect(second.curlCode != 0)
            #expect(send(client).status == 200)
        }
        #expect(server.acceptedConnections == 2)
        #expect(server.requests.map(\.connectionId) == [1, 2])
    }

    @Test func theExampleScriptFileLoads() throws {
        let script = try MockScript(contentsOf: MockFixtures.root.appendingPathComponent("mock-script.json"))
        #expect(script.devices.count == 6)
        #expect(script.devices[0].status == 410)
        #expect(script.devices[0].timestamp == 1_700_000_000_000)
        #expect(script.devices[2].count == 2)
        #expect(script.devices[4].neverAnswer == true)
        #expect(script.connections.map(\.connection) == [.next, .index(3), .all, .index(5)])
        #expect(script.connections[0].goAway == .init(afterRequests: 100, reason: "Shutdown"))
        #expect(script.connections[2].maxConcurrentStreams == .init(value: 500, afterRequests: 1000))
        let encoded = try JSONEncoder().encode(script)
        #expect(try MockScript(json: encoded) == script)
        #expect(throws: MockAPNsError.self) {
            try MockScript(json: Data(#"{"connections":[{"connection":"x"}]}"#.utf8))
        }
    }
}
