import APNsMock
import Foundation
import RelayCore
import Synchronization
import Testing

@Suite struct ServerTests {
    let path = "/3/device/" + MockFixtures.token

    @Test func tlsWithALPNh2AndASandboxUniqueId() throws {
        let server = try MockFixtures.start(
            .init(
                tls: .init(
                    certificatePath: MockFixtures.path("tls/server.pem"),
                    privateKeyPath: MockFixtures.path("tls/server.key")
                ),
                authentication: .disabled,
                environment: .sandbox
            )
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port, tls: .init(caPath: MockFixtures.path("tls/ca.pem")))
        let id = "3f2b8c1e-5a4d-4e6f-9a1b-2c3d4e5f6a7b"
        let response = client.send(
            path: path,
            headers: [MockFixtures.topic, "apns-id: \(id)"],
            body: MockFixtures.payload
        )
        #expect(response.httpVersion == 3)
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == id)
        #expect(UUID(uuidString: response.headers["apns-unique-id"] ?? "") != nil)
        #expect(response.body.isEmpty)
    }

    @Test func h2cAnswersWithAGeneratedLowercaseApnsIdAndRecordsTheRequest() async throws {
        let server = try MockFixtures.start(.init(authentication: .disabled))
        defer { server.stop() }
        let response = CurlH2Client(port: server.port).send(
            path: path,
            headers: [MockFixtures.topic, "apns-push-type: alert", "apns-priority: 10"],
            body: MockFixtures.payload
        )
        #expect(response.status == 200)
        let apnsId = try #require(response.headers["apns-id"])
        #expect(apnsId == apnsId.lowercased())
        #expect(UUID(uuidString: apnsId) != nil)
        #expect(response.headers["apns-unique-id"] == nil)
        let recorded = try #require(try await server.waitForRequests(count: 1).first)
        #expect(recorded.connectionId == 1)
        #expect(recorded.streamId == 1)
        #expect(recorded.method == "POST")
        #expect(recorded.deviceToken == MockFixtures.token)
        #expect(recorded.header("apns-topic") == "com.example.chat")
        #expect(recorded.headers.map(\.name).contains("apns-priority"))
        #expect(recorded.body == MockFixtures.payload)
        #expect(recorded.status == 200)
        #expect(recorded.apnsId == apnsId)
    }

    @Test func theRecordFileHoldsOneJSONLinePerAnsweredRequest() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mock-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let accepted = AcceptedCounter()
        let server = try MockFixtures.start(
            .init(
                authentication: .disabled,
                recordInMemory: false,
                recordFile: file.path,
                onAccepted: { accepted.add($0) }
            )
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(client.send(path: path, headers: [MockFixtures.topic], body: MockFixtures.payload).status == 200)
        #expect(client.send(path: path, headers: [], body: MockFixtures.payload).status == 400)
        _ = try await server.waitForRequests(count: 2)
        #expect(server.requests.isEmpty)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let decoded = try lines.map { try JSONDecoder().decode(RecordedRequest.self, from: Data($0.utf8)) }
        #expect(decoded.map(\.status) == [200, 400])
        #expect(decoded[1].reason == "MissingTopic")
        #expect(decoded[0].body == MockFixtures.payload)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["bodyEncoding"] as? String == "utf8")
        #expect(accepted.suffixes == [String(MockFixtures.token.suffix(8))])
    }

    @Test func garbageAndHalfOpenConnectionsDoNotStopTheServer() throws {
        let server = try MockFixtures.start(.init(authentication: .disabled))
        defer { server.stop() }
        let halfOpen = try RawSocket(port: server.port)
        let garbage = try RawSocket(port: server.port)
        garbage.write(Data("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + Data(repeating: 0xFF, count: 4096))
        #expect(garbage.readUntilClosed() >= 0)
        let response = CurlH2Client(port: server.port).send(
            path: path,
            headers: [MockFixtures.topic],
            body: MockFixtures.payload
        )
        #expect(response.status == 200)
        _ = halfOpen
    }

    @Test func aTLSServerClosesAClientThatDoesNotSpeakTLS() throws {
        let server = try MockFixtures.start(
            .init(
                tls: .init(
                    certificatePath: MockFixtures.path("tls/server.pem"),
                    privateKeyPath: MockFixtures.path("tls/server.key")
                ),
                authentication: .disabled
            )
        )
        defer { server.stop() }
        let garbage = try RawSocket(port: server.port)
        garbage.write(Data("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Data(repeating: 0x16, count: 300))
        #expect(garbage.readUntilClosed() >= 0)
        let client = CurlH2Client(port: server.port, tls: .init(caPath: MockFixtures.path("tls/ca.pem")))
        #expect(client.send(path: path, headers: [MockFixtures.topic], body: MockFixtures.payload).status == 200)
    }

    @Test func manyConnectionsAtOnce() throws {
        let server = try MockFixtures.start(.init(authentication: .disabled, recordInMemory: false))
        defer { server.stop() }
        let port = server.port
        let path = path
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            let client = CurlH2Client(port: port)
            for _ in 0..<5 {
                _ = client.send(path: path, headers: [MockFixtures.topic], body: MockFixtures.payload)
            }
        }
        #expect(server.answeredCount == 100)
        #expect(server.acceptedConnections == 20)
        #expect(server.requests.isEmpty)
    }

    @Test func stopClosesConnectionsAndCanBeCalledTwice() throws {
        let server = try MockFixtures.start(.init(authentication: .disabled))
        let socket = try RawSocket(port: server.port)
        server.stop()
        #expect(socket.readUntilClosed() >= 0)
        server.stop()
        #expect(throws: MockAPNsError.self) {
            let other = MockAPNsServer(configuration: .init(host: "not a host name")); try other.start()
        }
    }
}

/// Collects token suffixes from `onAccepted`, which runs on the server's thread.
final class AcceptedCounter: Sendable {
    private let storage = Mutex<[String]>([])
    func add(_ request: RecordedRequest) { storage.withLock { $0.append(request.deviceTokenSuffix ?? "") } }
    var suffixes: [String] { storage.withLock { $0 } }
}
