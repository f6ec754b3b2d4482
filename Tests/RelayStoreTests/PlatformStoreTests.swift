import APNsCore
import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

private typealias F = StoreFixtures

/// Devices with platforms, and notifications that keep the chat message (step 11).
@Suite struct PlatformStoreTests {
    /// A version-10 file: its devices become iOS ones, and a notification recorded as an APNs payload is read
    /// back as the message that renders the same alert, so its pending delivery goes out unchanged.
    @Test func aVersionTenDatabaseKeepsItsDevicesAndItsPendingPushes() async throws {
        try await F.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v10.sqlite").path
            let t0 = Int64(F.t0.timeIntervalSince1970 * 1000)
            let id = "0b5c4a8e-3f7e-4c1e-9a43-2f1d6b8e9c01"
            let alert = ChatMessage(
                roomId: "room-1",
                senderId: "alice",
                content: .image(caption: "look", imageURL: "https://cdn.example.com/1.jpg"),
                messageId: "m-1",
                roomName: "Team",
                senderName: "Alice"
            ).payload()
            let payload = alert.encoded()
            try FeedbackStoreTests.oldDatabase(
                at: path,
                version: 10,
                rows: """
                    INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                    VALUES ('app-a', '\(F.token(1).value)', 'bob', 'production', \(t0), \(t0));
                    INSERT INTO notifications (id, app_id, kind, message_id, room_id, sender_id, topic, push_type,
                        priority, expiration, collapse_id, payload, created_at, first_delivery_id, last_delivery_id)
                    VALUES ('\(id)', 'app-a', 'image_message', 'm-1', 'room-1', 'alice', 'com.example.chat',
                        'alert', 10, 1800086400, 'm-1', x'\(payload.map { String(format: "%02x", $0) }.joined())',
                        \(t0), 7, 7);
                    INSERT INTO deliveries (id, app_id, user_id, token, status, attempts, next_attempt_at)
                    VALUES (7, 'app-a', 'bob', '\(F.token(1).value)', 'pending', 0, \(t0));
                    """
            )
            let store = try SQLiteStore(path: path, logger: .disabled())
            #expect(store.schemaVersion == SQLiteMigrations.steps.count)
            let device = try #require(try await store.device(appId: "app-a", token: F.token(1)))
            #expect(device.platform == .ios && device.token.scope == "production")
            let job = try #require(
                try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner).first
            )
            #expect(job.token == F.token(1) && job.content.sendAs == "com.example.chat")
            #expect(job.content.expiration == 1_800_086_400 && job.content.message.messageId == "m-1")
            #expect(job.content.message.payload().encoded() == payload, "the same APNs payload as before")
        }
    }

    /// An Android device is stored with its platform and its token exactly as given; a notification for a
    /// room reaches both platforms' devices, each job with its own token's platform.
    @Test(arguments: StoreKind.allCases) func androidDevicesAreStoredAndClaimedBesideIOSOnes(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.token(1), user: "bob", environment: .sandbox)
        let (android, created) = try await store.register(F.fcmToken(2), user: "carol", environment: .production)
        #expect(created && android.platform == .android && android.token == F.fcmToken(2))
        #expect(try await store.device(appId: "app-a", token: F.fcmToken(2))?.platform == .android)
        let outcome = try await store.createNotification(F.notification(), recipients: .init(roomId: "room-1"))
        #expect(outcome.devices == 2)
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 10, leaseSeconds: 30, owner: F.owner)
        #expect(Set(jobs.map(\.token)) == [F.token(1), F.fcmToken(2)])
        #expect(jobs.allSatisfy { $0.content === jobs[0].content }, "one content shared by a notification's jobs")
        #expect(try await store.deleteDevice(appId: "app-a", token: F.fcmToken(2)))
    }

    /// The message is stored whole: every field comes back in the job, an image message's kind with it.
    @Test(arguments: StoreKind.allCases) func theChatMessageRoundTrips(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await store.register(F.fcmToken(1), user: "bob")
        let message = ChatMessage(
            roomId: "room-1",
            senderId: "alice",
            content: .image(caption: nil, imageURL: "https://cdn.example.com/2.png"),
            messageId: "m-2",
            roomName: "Team ✨",
            senderName: nil
        )
        let n = NewNotification(appId: "app-a", message: message, sendAs: "com.example.chat", createdAt: F.t0)
        _ = try await store.createNotification(n, recipients: .init(roomId: "room-1"))
        let job = try #require(
            try await store.claimDueDeliveries(now: F.t0, limit: 1, leaseSeconds: 30, owner: F.owner).first
        )
        #expect(job.content.message == message && job.content.message.kind == .imageMessage)
        #expect(job.content.expiration == nil)
    }
}
