import FCMCore
import FCMMock
import Foundation
import RelayCore
import RelayCrypto
import RelayFCM

/// A real mock FCM on port 0 (TLS with the fixture certificate, or h2c) and a real FCMClient on the same
/// service account, whose token_uri is the mock's /token.
struct FCMHarness {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../fixtures").standardized
    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    /// One service account for the whole test run, a fixture (generating an RSA key would hold a thread of
    /// the cooperative pool while every test waits on this global); its token_uri is replaced with each
    /// mock's.
    static let account = try! FCMServiceAccount(contentsOfFile: fixture("fcm/test-service-account.json"))

    let mock: MockFCMServer
    let client: FCMClient
    let account: FCMServiceAccount

    /// Starts the mock, then a client whose account points its token_uri at it.
    static func start(
        tls: Bool = true,
        timeSource: any TimeSource = SystemTimeSource(),
        script: MockFCMScript = MockFCMScript(),
        clientAccount: FCMServiceAccount = FCMHarness.account,
        requestTimeout: Duration = .seconds(120)
    ) throws -> FCMHarness {
        let mock = MockFCMServer(
            configuration: MockFCMConfiguration(
                tls: tls
                    ? .init(certificatePath: fixture("tls/server.pem"), privateKeyPath: fixture("tls/server.key"))
                    : nil,
                accounts: [try MockFCMAccount(serviceAccount: account)],
                timeSource: timeSource,
                script: script
            )
        )
        try mock.start()
        let base = (tls ? "https" : "http") + "://127.0.0.1:\(mock.port)"
        var account = clientAccount
        account.tokenURI = base + MockFCMConfiguration.tokenPath
        var configuration = FCMClientConfiguration(
            endpoint: .custom(baseURL: base, caFile: tls ? fixture("tls/ca.pem") : nil),
            serviceAccount: account
        )
        configuration.timeSource = timeSource
        configuration.requestTimeout = requestTimeout
        return FCMHarness(mock: mock, client: try FCMClient(configuration: configuration), account: account)
    }

    func stop() async {
        await client.shutdown()
        mock.stop()
    }

    /// A valid registration token, distinct per index.
    static func token(_ index: Int) -> FCMRegistrationToken {
        try! FCMRegistrationToken(
            parsing: String(format: "device%05d:APA91b", index) + String(repeating: "x", count: 140)
        )
    }

    /// A chat message to the token of `index`.
    static func message(_ index: Int, text: String = "hello") -> FCMMessage {
        let chat = ChatMessage(
            roomId: "room-7",
            senderId: "u1",
            content: .text(text),
            messageId: "msg-\(index)",
            roomName: "Team",
            senderName: "Alice"
        )
        return FCMMessage(token: token(index), shown: chat.shown, ttlSeconds: 3600)
    }
}
