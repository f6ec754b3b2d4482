import Foundation
import RelayTestSupport
import Testing

/// `push-relay mock-apns` tells a developer what it refuses as it tells what it accepts: started without a
/// provider key it says every request will be refused, and each refusal is a line naming the reason and the
/// token's suffix only.
@Suite struct MockAPNsRefusalLineTests {
    @Test func aMockWithoutKeysSaysSoAndPrintsEachRefusal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try RelayProcess(["mock-apns", "--port", "0", "--h2c"], outputIn: directory.url, name: "mock")
        let address = try await mock.line(startingWith: "mock APNs listening on ")
        #expect(address.contains("no key: every request is refused 403"), "\(address)")
        let port = try #require(URL(string: String(address.prefix { $0 != " " }))?.port)
        let token = String(repeating: "ab", count: 28) + "12345678"
        let sent = try await CommandTests.run([
            "send", "--token", token, "--topic", "com.example.chat", "--endpoint", "http://127.0.0.1:\(port)",
            "--key-file", "fixtures/keys/AuthKey_ABC123DEFG.p8", "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
        ])
        #expect(sent.status == 1 && sent.stdout.contains(#""status":403"#), "\(sent.stdout)\n\(sent.stderr)")
        let refused = try await mock.line(startingWith: "mock APNs refused ")
        #expect(refused.hasPrefix("status=403 reason=InvalidProviderToken "), "\(refused)")
        #expect(refused.contains("token=…12345678 ") && !refused.contains(token), "\(refused)")
    }
}
