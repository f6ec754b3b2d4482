import FCMCore
import Foundation
import RelayCore
import RelayFCM
import RelayTestSupport
import Testing

/// `push-relay serve` on its embedded defaults also runs a mock FCM for the development app: its service
/// account file (made once, 0600) points at the mock's token endpoint, and messages:send answers.
@Suite struct DevelopmentFCMTests {
    @Test func theDevelopmentAppGetsAMockFCMWhoseTokenEndpointAndSendAnswer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.url.appendingPathComponent("data")
        let accountFile = data.appendingPathComponent("dev-fcm-service-account.json").path

        let (first, base) = try await RelayProcess.development(
            data: data,
            in: directory.url,
            name: "first",
            mock: "FCM"
        )
        #expect(base.hasPrefix("https://127.0.0.1:"), "\(base)")
        let account = try FCMServiceAccount(contentsOfFile: accountFile)
        #expect(account.tokenURI == base + "/token")
        #expect(account.projectId == "dev-project")
        let permissions = try FileManager.default.attributesOfItem(atPath: accountFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        // The relay's own FCM client, on the file the relay was given: an access token, then a send.
        let client = try FCMClient(
            configuration: .init(
                endpoint: .custom(
                    baseURL: base,
                    caFile: packageRoot.appendingPathComponent("fixtures/tls/ca.pem").path
                ),
                serviceAccount: account
            )
        )
        let token = try FCMRegistrationToken(parsing: "dev-device:APA91b" + String(repeating: "d", count: 140))
        let chat = ChatMessage(roomId: "general", senderId: "alice", content: .text("hi"), messageId: "m-1")
        let response = try await client.send(FCMMessage(token: token, shown: chat.shown, ttlSeconds: 60))
        await client.shutdown()
        #expect(response.status == 200)
        let accepted = try await first.line(startingWith: "mock FCM accepted ")
        #expect(accepted.contains("name=projects/dev-project/messages/"), "\(accepted)")
        #expect(accepted.contains("token=…\(token.suffix)") && !accepted.contains(token.value))
        first.signal(SIGTERM)
        #expect(try await first.exitStatus().status == 0)

        // The next start keeps the key and points the file at its own mock.
        let (second, secondBase) = try await RelayProcess.development(
            data: data,
            in: directory.url,
            name: "second",
            mock: "FCM"
        )
        let again = try FCMServiceAccount(contentsOfFile: accountFile)
        #expect(again.privateKey == account.privateKey && again.privateKeyId == account.privateKeyId)
        #expect(again.tokenURI == secondBase + "/token")
        #expect(try FileManager.default.attributesOfItem(atPath: accountFile)[.posixPermissions] as? Int == 0o600)
        second.signal(SIGTERM)
        #expect(try await second.exitStatus().status == 0)
    }
}
