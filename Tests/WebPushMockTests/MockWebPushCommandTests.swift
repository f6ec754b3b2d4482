import Foundation
import RelayTestSupport
import Testing
import WebPushCore

/// `push-relay mock-webpush --new-subscription` as a process.
@Suite struct MockWebPushCommandTests {
    /// The built `push-relay` binary, beside the running test binary (SwiftPM puts both in one folder).
    static func binary() throws -> String {
        let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("push-relay").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "push-relay not built at \(path)")
        return path
    }

    @Test(arguments: ["http://127.0.0.1:2199", "https://push.example.com:8443"])
    func aNewSubscriptionIsPrintedAsABrowserGivesItAndKeptInTheDirectory(url: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (termination, output) = try await ChildProcess.run(
            try Self.binary(),
            ["mock-webpush", "--new-subscription", "--url", url, "--subscriptions", directory.path]
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
    }
}
