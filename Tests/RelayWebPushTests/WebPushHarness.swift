import Foundation
import RelayCore
import RelayWebPush
import WebPushCore
import WebPushMock

/// A real mock Web Push service on port 0 (TLS with the fixture certificate, or h2c) and a real
/// WebPushTransport whose app trusts it as its mock.
struct WebPushHarness {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../fixtures").standardized
    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    static let appId = "chat"
    static let key = try! VAPIDKey.generate()
    static let subject = "mailto:ops@example.com"
    static let policy = RetryPolicy(maxAttempts: 5, baseDelayMilliseconds: 1000, maxDelayMilliseconds: 60_000)

    let mock: MockWebPushServer
    let transport: WebPushTransport
    let configuration: WebPushClientConfiguration

    /// Starts the mock, then a transport with one app whose mock it is.
    static func start(
        tls: Bool = true,
        script: MockWebPushScript = MockWebPushScript(),
        configure: (inout WebPushClientConfiguration) -> Void = { _ in }
    ) throws -> WebPushHarness {
        let mock = MockWebPushServer(
            configuration: MockWebPushConfiguration(
                tls: tls
                    ? .init(certificatePath: fixture("tls/server.pem"), privateKeyPath: fixture("tls/server.key"))
                    : nil,
                script: script
            )
        )
        try mock.start()
        var configuration = WebPushClientConfiguration(vapidKey: key, subject: subject)
        configuration.mock = .init(baseURL: mock.baseURL, caFile: tls ? fixture("tls/ca.pem") : nil)
        configuration.ttlSeconds = 3600
        configure(&configuration)
        let transport = WebPushTransport(
            configurations: [appId: configuration],
            retry: policy,
            time: SystemTimeSource(),
            logger: .disabled()
        )
        return WebPushHarness(mock: mock, transport: transport, configuration: configuration)
    }

    func stop() async {
        await transport.shutdown()
        mock.stop()
    }

    /// A new subscription at the mock, as a browser would get it.
    func subscription() throws -> WebPushSubscription { try mock.newSubscription() }

    /// The mock's endpoint id of `subscription`.
    static func id(_ subscription: WebPushSubscription) -> String {
        MockWebPushServer.endpointId(of: subscription.endpoint)!
    }

    /// A delivery of a chat message to `subscription`.
    static func job(
        to subscription: WebPushSubscription,
        messageId: String? = "m-1",
        mode: PushMode = .alert,
        expiration: Int? = nil,
        message: ChatMessage? = nil
    ) throws -> DeliveryJob {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(subscription), as: UTF8.self)
        let identity = PushEndpoint.deviceToken(endpoint: subscription.endpoint)
        let chat =
            message
            ?? ChatMessage(
                roomId: "room-7",
                senderId: "u1",
                content: .text("hello from the web"),
                messageId: messageId,
                roomName: "Team",
                senderName: "Alice"
            )
        return DeliveryJob(
            deliveryId: 1,
            appId: appId,
            token: .web(try WebPushToken(identity: identity, subscription: json)),
            attempts: 0,
            deviceRegisteredAt: Date(),
            content: NotificationContent(
                id: UUID(),
                message: chat,
                sendAs: "web",
                expiration: expiration,
                createdAt: Date()
            ),
            mode: mode
        )
    }

    /// `subscription` with its endpoint's scheme, host and port replaced by `base` (same path).
    static func moved(_ subscription: WebPushSubscription, to base: String) -> WebPushSubscription {
        var moved = subscription
        let path = URLComponents(string: subscription.endpoint)!.path
        moved.endpoint = base + path
        return moved
    }
}
