import Foundation
import RelayCore

@testable import RelayStore

/// Shared helpers: tokens, times and notifications for store tests.
enum StoreFixtures {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// The instance id leases are taken for, and a second relay's.
    static let owner = "relay-a"
    static let otherOwner = "relay-b"

    /// The ``StoreError`` `body` throws, nil when it returns.
    static func storeError(_ body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? StoreError
        }
    }

    /// A 32-byte token whose hex ends with `n` in hex.
    static func token(_ n: Int) -> PushToken {
        .apns(try! DeviceToken(parsing: String(repeating: "a", count: 48) + String(format: "%016x", n)))
    }

    /// An FCM registration token ending with `n` in hex.
    static func fcmToken(_ n: Int) -> PushToken {
        .fcm(
            try! FCMRegistrationToken(
                parsing: "fcm-token:APA91b" + String(repeating: "Xy_", count: 40) + String(format: "%08x", n)
            )
        )
    }

    /// A web device's token: the identity of endpoint `n` (made up, as WebPushCore's hash would be) and a
    /// subscription JSON whose keys are `keys` (the store keeps it as given).
    static func webToken(_ n: Int, keys: String = "k1") -> PushToken {
        let identity = WebPushToken.prefix + String(repeating: "w", count: 35) + String(format: "%08x", n)
        let subscription = """
            {"endpoint":"https://push.example.com/send/\(n)","keys":{"auth":"\(keys)-auth","p256dh":"\(keys)-point"}}
            """
        return .web(try! WebPushToken(identity: identity, subscription: subscription))
    }

    /// A token from its stored text (the fixtures' APNs hex, a web identity, else FCM).
    static func token(text: String) -> PushToken {
        if let apns = try? DeviceToken(parsing: text) { return .apns(apns) }
        if let web = try? WebPushToken(parsing: text) { return .web(web) }
        return .fcm(try! FCMRegistrationToken(parsing: text))
    }

    static func time(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    static func notification(
        app: String = "app-a",
        room: String = "room-1",
        sender: String = "alice",
        messageId: String? = UUID().uuidString,
        sendAs: String = "com.example.chat",
        at: Date = t0
    ) -> NewNotification {
        NewNotification(
            appId: app,
            message: ChatMessage(
                roomId: room,
                senderId: sender,
                content: .text("hi"),
                messageId: messageId,
                roomName: "Team",
                senderName: "Alice"
            ),
            sendAs: sendAs,
            expiration: 1_800_086_400,
            createdAt: at
        )
    }

    /// A temporary directory removed by `body`'s end.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("relay-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }
}

extension Store {
    /// Registers `token` for `user` in the given rooms at `at`; an APNs token for `environment`.
    @discardableResult
    func register(
        _ token: PushToken,
        user: String,
        app: String = "app-a",
        rooms: [String] = ["room-1"],
        environment: APNsEnvironment = .sandbox,
        at: Date = StoreFixtures.t0
    ) async throws -> (device: Device, created: Bool) {
        try await upsertDevice(
            appId: app,
            token: try token.registered(scope: environment.rawValue),
            userId: user,
            rooms: rooms,
            at: at
        )
    }

    /// Tokens of the pending deliveries of a notification.
    func pendingTokens(app: String = "app-a", of id: UUID) async throws -> Set<PushToken> {
        let result = try await notification(appId: app, id: id)
        return Set(
            result?.deliveries.filter { $0.status == .pending }.map { StoreFixtures.token(text: $0.token) } ?? []
        )
    }
}
