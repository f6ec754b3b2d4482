import Foundation
import MockHTTP2
import RelayCurl
import Synchronization
import Testing

/// The generic mock server with a service made up here, in the shape a third service would take (Web Push: a
/// POST to any path with a header to check, answered 201): its conformances alone give it the listening,
/// HTTP/2 over TLS, per-token scripted answers and the record. Driven with libcurl (OutboundHTTP), in-process
/// on port 0.
@Suite struct MockServerTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../fixtures").standardized
    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    static func start(
        script: TestScript = TestScript(),
        onAccepted: (@Sendable (TestRecord) -> Void)? = nil
    ) throws -> MockServer<TestScript, TestRecord> {
        let configuration = TestConfiguration(
            tls: ServerTLS(certificatePath: fixture("tls/server.pem"), privateKeyPath: fixture("tls/server.key")),
            script: script,
            onAccepted: onAccepted
        )
        let server = MockServer(configuration: configuration) { TestService() }
        try server.start()
        return server
    }

    static func post(_ server: MockServer<TestScript, TestRecord>, path: String, key: String?) async throws -> Int {
        try await OutboundHTTP.post(
            url: "https://127.0.0.1:\(server.port)\(path)",
            body: Data("sealed".utf8),
            headers: key.map { [("x-test-key", $0)] } ?? [],
            timeout: .seconds(60),
            caFile: fixture("tls/ca.pem")
        )
    }

    @Test func theServiceChecksAnswersAndRecordsTheRestIsTheServers() async throws {
        let accepted = Accepted()
        let server = try Self.start { accepted.add($0) }
        defer { server.stop() }

        #expect(try await Self.post(server, path: "/push/one", key: "k") == 201)
        #expect(try await Self.post(server, path: "/push/two", key: nil) == 401)
        #expect(try await Self.post(server, path: "/other", key: "k") == 404)

        let records = try await server.waitForRequests(count: 2, timeout: .seconds(60))
        #expect(records.map(\.path) == ["/push/one", "/push/two"])
        #expect(records.map(\.status) == [201, 401])
        #expect(server.answeredCount == 2)  // the 404 route is outside the record
        #expect(accepted.paths == ["/push/one"])
    }

    @Test func scriptRulesAnswerTheirTokenForTheirCountThenFallThrough() async throws {
        let script = TestScript(devices: [.init(token: "/push/gone", status: 410, count: 2)])
        let server = try Self.start(script: script)
        defer { server.stop() }

        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await Self.post(server, path: "/push/gone", key: "k")) }
        #expect(statuses == [410, 410, 201])
        #expect(try await Self.post(server, path: "/push/other", key: "k") == 201)

        server.script = TestScript(devices: [.init(token: "/push/other", status: 429)])
        #expect(try await Self.post(server, path: "/push/gone", key: "k") == 201)
        #expect(try await Self.post(server, path: "/push/other", key: "k") == 429)
    }
}

/// The test service: `POST /push/<id>` needs `x-test-key` (else 401) and is answered 201; other paths 404,
/// outside the record. The token of a request is its path.
final class TestService: MockService {
    typealias Script = TestScript
    static let threadName = "test-mock"
    static let bodyLimit = 1024
    static let acceptedStatus = 201

    func check(_ stream: RequestStream, on connection: H2Connection) -> MockVerdict<Int> {
        let path = stream.headers.first { $0.name == ":path" }?.value ?? ""
        guard path.hasPrefix("/push/") else { return .unrecorded(MockReply(status: 404)) }
        guard stream.headers.contains(where: { $0.name == "x-test-key" }) else { return .refused(401) }
        return .valid(token: path, accepted: 201)
    }

    func answer(_ accepted: Int, scriptedBy rule: TestScript.Rule) -> Int { rule.status }

    func reply(to stream: RequestStream, with answer: Int) -> MockReply { MockReply(status: answer) }

    func record(of stream: RequestStream, answer: Int, reply: MockReply, on connection: H2Connection) -> TestRecord {
        TestRecord(path: stream.headers.first { $0.name == ":path" }?.value ?? "", status: reply.status)
    }
}

struct TestRecord: Sendable, Encodable {
    var path: String
    var status: Int
}

struct TestScript: MockScripted, Decodable {
    struct Rule: MockDeviceRule, Decodable {
        var token: String
        var status: Int
        var count: Int?
        var delayMs: Int?
        var neverAnswer: Bool?

        func applies(to token: String) -> Bool { self.token == token }
    }

    var devices: [Rule] = []
}

struct TestConfiguration: MockServerSettings {
    var host = "127.0.0.1"
    var port = 0
    var tls: ServerTLS?
    var maxConcurrentStreams = 100
    var recordInMemory = true
    var maxRecordedRequests = 100
    var recordFile: String?
    var script: TestScript
    var onAccepted: (@Sendable (TestRecord) -> Void)?
}

/// The paths the server reported accepted, from its thread.
final class Accepted: Sendable {
    private let state = Mutex<[String]>([])
    func add(_ record: TestRecord) { state.withLock { $0.append(record.path) } }
    var paths: [String] { state.withLock { $0 } }
}
