import Foundation
import RelayTestSupport
import Testing
import WebPushCore

/// `push-relay mock-webpush --new-subscription` as a process.
@Suite struct MockWebPushCommandTests {
    @Test(arguments: ["http://127.0.0.1:2199", "https://push.example.com:8443"])
    func aNewSubscriptionIsPrintedAsABrowserGivesItAndKeptInTheDirectory(url: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (termination, output) = try await ChildProcess.run(
            try pushRelayBinary().path,
            [
                "mock-webpush", "--new-subscription", "--url", url, "--subscriptions", directory.path,
                "--vapid-key", WebPushClient.vapidKey.publicKeyBase64URL,
            ]
        )
        #expect(termination == .exited(0))
        let line = Data(output.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(Set(object.keys) == ["endpoint", "expirationTime", "keys"])
        #expect(object["expirationTime"] is NSNull)
        let subscription = try JSONDecoder().decode(WebPushSubscription.self, from: line)
        #expect(subscription.endpoint.hasPrefix(url + "/push/"))
        let validated = try subscription.validated(allowingHTTP: url.hasPrefix("http:"))
        #expect(validated.keys.auth.count == 16)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 1)
        #expect(files.first.map { subscription.endpoint.hasSuffix("/" + $0.dropLast(".json".count)) } == true)
        let file = try String(contentsOf: directory.appendingPathComponent(try #require(files.first)), encoding: .utf8)
        #expect(file.contains("\"applicationServerKey\":\"\(WebPushClient.vapidKey.publicKeyBase64URL)\""))
    }
}

extension MockWebPushCommandTests {
    /// Waits (up to 60 s) for a line of `file` that starts with `prefix`.
    static func line(in file: URL, startingWith prefix: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line) }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CancellationError()
    }

    @Test func theServingMockOpensASubscriptionMadeByAnotherProcessAndPrintsNoSecret() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("stdout")
        let record = directory.appendingPathComponent("record.jsonl")
        let subscriptions = directory.appendingPathComponent("subscriptions").path
        try Data().write(to: output)
        let mock = try ChildProcess(
            try pushRelayBinary().path,
            ["mock-webpush", "--h2c", "--port", "0", "--subscriptions", subscriptions, "--record", record.path],
            standardOutput: output.path
        )
        defer {
            if mock.isRunning { mock.signal(SIGKILL) }
            _ = mock.waitForExit()
        }
        let listening = try await Self.line(in: output, startingWith: "mock Web Push listening on ")
        let base = try #require(listening.split(separator: " ").dropFirst(5).first.map(String.init))
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let (made, json) = try await ChildProcess.run(
            try pushRelayBinary().path,
            ["mock-webpush", "--new-subscription", "--url", base, "--subscriptions", subscriptions]
        )
        #expect(made == .exited(0))
        let subscription = try JSONDecoder().decode(WebPushSubscription.self, from: Data(json.utf8))
        let client = try WebPushClient()
        let answer = try await client.send(
            try WebPushClient.push(WebPushClient.plainPayload, to: subscription),
            to: subscription
        )
        await client.shutdown()
        #expect(answer.status == 201)

        let accepted = try await Self.line(in: output, startingWith: "mock Web Push accepted ")
        #expect(accepted.contains("\"dittoChatRoomId\":\"room-1\""))
        #expect(accepted.contains("sub=mailto:ops@example.com"))
        let id = try #require(subscription.endpoint.split(separator: "/").last)
        #expect(accepted.contains("endpoint=…\(id.suffix(6))"))
        #expect(!accepted.contains(String(id)))
        #expect(!accepted.contains(subscription.keys.auth))
        #expect(!accepted.contains(subscription.keys.p256dh))

        mock.signal(SIGTERM)
        #expect(mock.waitForExit() == .exited(0))
        let recorded = try String(contentsOf: record, encoding: .utf8)
        #expect(recorded.contains("\"status\":201"))
        #expect(try String(contentsOf: output, encoding: .utf8).contains("mock Web Push stopped after 1 push(es)"))
    }
}
