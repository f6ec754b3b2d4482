import Foundation
import RelayTestSupport
import Testing

/// `push-relay send --push-type background` against `push-relay mock-apns`: both real processes over h2c,
/// the mock's record file as the witness. A background push only wakes the app, as Apple wants it.
@Suite struct SendBackgroundCommandTests {
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"

    @Test func aBackgroundPushWithoutAPayloadOnlyWakesAndOneThatAlertsIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let record = directory.url.appendingPathComponent("record.jsonl")
        let mock = try RelayProcess(
            [
                "mock-apns", "--port", "0", "--h2c", "--quiet", "--record", record.path,
                "--key", "\(Self.keyId):\(Self.teamId):fixtures/keys/AuthKey_\(Self.keyId).pub.pem",
            ],
            outputIn: directory.url,
            name: "mock"
        )
        let address = try await mock.line(startingWith: "mock APNs listening on ")
        let port = try #require(URL(string: String(address.prefix { $0 != " " }))?.port)
        let send = [
            "send", "--token", String(repeating: "ab", count: 32), "--topic", "com.example.chat",
            "--push-type", "background", "--endpoint", "http://127.0.0.1:\(port)",
            "--key-file", "fixtures/keys/AuthKey_\(Self.keyId).p8", "--key-id", Self.keyId, "--team-id", Self.teamId,
        ]
        let woken = try await CommandTests.run(send)
        #expect(woken.status == 0, "\(woken.stdout)\n\(woken.stderr)")

        let alerting = directory.url.appendingPathComponent("alert.json")
        try Data(#"{"aps":{"content-available":1,"alert":"hi"}}"#.utf8).write(to: alerting)
        let refused = try await CommandTests.run(send + ["--payload", alerting.path])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains(#""reason":"InvalidPushType""#), "\(refused.stdout)")
        // A payload that is not JSON is the command's mistake, found before anything is sent.
        let broken = directory.url.appendingPathComponent("broken.json")
        try Data(#"{"aps":{"content-available":1"#.utf8).write(to: broken)
        let unsent = try await CommandTests.run(send + ["--payload", broken.path])
        #expect(unsent.status == 2 && unsent.stderr.contains("is not strict JSON"), "\(unsent.stderr)")
        try Data("[]".utf8).write(to: broken)
        let list = try await CommandTests.run(send + ["--payload", broken.path])
        #expect(list.status == 2 && list.stderr.contains("must hold a JSON object"), "\(list.stderr)")

        // The mock writes its record beside answering: wait for both lines.
        var lines: [Substring] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while lines.count < 2, ContinuousClock.now < deadline {
            lines = ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n")
            if lines.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(lines.count == 2)
        let first = try #require(
            try lines.first.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? nil
        )
        #expect(first["body"] as? String == #"{"aps":{"content-available":1}}"#)
        let headers = (first["headers"] as? [[String]] ?? []).reduce(into: [String: String]()) { $0[$1[0]] = $1[1] }
        #expect(headers["apns-push-type"] == "background" && headers["apns-priority"] == "5")
    }
}
