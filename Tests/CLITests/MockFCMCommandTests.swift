import FCMCore
import FCMMock
import Foundation
import RelayCore
import RelayFCM
import RelayTestSupport
import Testing

/// `push-relay mock-fcm` as a process: it writes a service account pointing at itself, and the real FCM
/// client sends through it.
@Suite struct MockFCMCommandTests {
    @Test(arguments: [false, true])
    func aNewServiceAccountLetsTheClientSendAndEachMessageIsPrinted(tls: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try await MockFCMProcess(in: directory.url, tls: tls)
        let base = mock.server.baseURL
        #expect(base.hasPrefix(tls ? "https://127.0.0.1:" : "http://127.0.0.1:"))
        let account = try FCMServiceAccount(contentsOfFile: mock.accountFile)
        #expect(account.tokenURI == base + "/token")
        #expect(account.projectId == MockFCMProcess.project)

        let client = try FCMClient(
            configuration: .init(
                endpoint: .custom(baseURL: base, caFile: tls ? MockProcess.caFile : nil),
                serviceAccount: account
            )
        )
        let token = try FCMRegistrationToken(parsing: "cli-device:APA91b" + String(repeating: "q", count: 120))
        let chat = ChatMessage(roomId: "room-1", senderId: "u", content: .text("hi from the CLI"), messageId: "m-1")
        let message = FCMMessage(token: token, shown: chat.shown, ttlSeconds: 60)
        let response = try await client.send(message)
        await client.shutdown()
        #expect(response.status == 200)

        let accepted = try await mock.server.process.line(startingWith: "mock FCM accepted ")
        #expect(accepted.contains("token=…\(token.suffix)"))
        #expect(!accepted.contains(token.value))
        let shown = String(decoding: try message.encoded(), as: UTF8.self)
            .replacingOccurrences(of: token.value, with: "…" + token.suffix)
        #expect(accepted.hasSuffix("message=" + shown))
        #expect(try await mock.server.stop() == 0)
        #expect(mock.server.process.stdout.contains("mock FCM stopped after 1 message(s)"))
    }

    @Test func withoutAnAccountTheMockRefusesToStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = try RelayProcess(["mock-fcm", "--h2c"], outputIn: directory.url, name: "no-account")
        let exit = try await process.exitStatus(timeout: .seconds(30))
        #expect(exit.status == 2)
        #expect(process.stderr.contains("give --service-account FILE or --new-service-account FILE"))
    }

    /// Two service accounts of one client_email would leave one refused with nothing said; the mock says so.
    /// Accounts it makes differ in theirs.
    @Test func twoAccountsOfOneEmailAreRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try FCMMock.MockFCMAccount.makeServiceAccount(
            projectId: "chat-app-1234",
            tokenURI: "http://127.0.0.1:1/token"
        )
        var second = try FCMMock.MockFCMAccount.makeServiceAccount(
            projectId: "chat-app-1234",
            tokenURI: "http://127.0.0.1:1/token"
        )
        #expect(first.clientEmail != second.clientEmail)
        second.clientEmail = first.clientEmail
        let paths = [("a", first), ("b", second)].map { name, account in
            let path = directory.url.appendingPathComponent("\(name).json").path
            try? account.encoded().write(to: URL(fileURLWithPath: path))
            return path
        }
        let process = try RelayProcess(
            ["mock-fcm", "--h2c", "--service-account", paths.joined(separator: ",")],
            outputIn: directory.url,
            name: "same-email"
        )
        let exit = try await process.exitStatus(timeout: .seconds(30))
        #expect(exit.status == 2)
        #expect(process.stderr.contains("two service accounts share client_email \(first.clientEmail)"))
    }
}
