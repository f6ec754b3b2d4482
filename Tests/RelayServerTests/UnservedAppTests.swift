import Foundation
import RelayCore
import RelayStore
import Testing

@testable import RelaySQLite

/// A relay claims only the apps of its configuration: another app's deliveries in a shared store (relays
/// whose configurations differ during a rolling change) wait for the relays that serve it.
@Suite struct UnservedAppTests {
    @Test func anotherAppsDeliveriesAreLeftPending() async throws {
        try await withRelayAndMock { relay in
            let store = try #require(try relay.relay.store as? SQLiteStore)
            let token = try DeviceToken(parsing: randomToken(), environment: .sandbox)
            _ = try await store.upsertDevice(
                appId: "other",
                token: .apns(token),
                userId: "bob",
                rooms: ["room"],
                at: Date()
            )
            let chat = ChatMessage(roomId: "room", senderId: "alice", content: .text("hi"), messageId: "m-other")
            let other = try await store.createNotification(
                NewNotification(appId: "other", message: chat, sendAs: "com.example.other", createdAt: Date()),
                recipients: .init(roomId: "room")
            )
            #expect(try await store.appsWithDueDeliveries(now: Date()) == ["other"])
            // The relay's own app is served meanwhile: its push is sent, the other app's still waits.
            let phone = randomToken()
            try await relay.register(phone, user: "carol", rooms: ["room"])
            let served = try await relay.webhook(["roomId": "room", "senderId": "alice", "text": "hi"])
            #expect(try await relay.settled(served.notificationId).counts.sent == 1)
            #expect(relay.requests(to: phone).count == 1)
            let waiting = try #require(
                try await store.notification(appId: "other", id: other.notificationId, limit: 1, offset: 0)
            )
            // Claimed in the same pass as the served app's, an attempt would be recorded by now (its send
            // fails at once, for want of the app's credentials).
            #expect(waiting.summary.counts.pending == 1 && waiting.deliveries.map(\.attempts) == [0])
        }
    }
}
