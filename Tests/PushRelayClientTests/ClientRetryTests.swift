import Foundation
import PushRelayClient
import RelayTestSupport
import Testing

/// How the client retries, against the live relay behind the test's front (which answers scripted
/// failures itself and forwards everything else).
@Suite("PushRelayClient retries")
struct ClientRetryTests {
    static let messagePath = ClientLiveTests.messagePath

    /// Bob's device in `general`, and Alice's client (with `sleeps`) ready to send there.
    static func room(
        _ live: LiveRelay,
        sleeps: SleepLog = SleepLog(),
        retry: PushRelayClient.RetryPolicy = LiveRelay.quickRetry
    ) async throws -> (alice: PushRelayClient, bobToken: String) {
        let bobToken = ClientLiveTests.randomToken()
        try await live.client(userId: "bob").registerDevice(token: bobToken, rooms: ["general"])
        try await live.client(userId: "alice").joinRoom("general")
        let alice = live.client(userId: "alice", retry: retry, sleeps: sleeps)
        return (alice, PushRelayClient.hexString(deviceToken: bobToken))
    }

    @Test("A 503 once is retried with the same Idempotency-Key, and one notification is made")
    func serviceUnavailableOnce() async throws {
        try await withLiveRelay { live in
            let sleeps = SleepLog()
            let (alice, bobToken) = try await Self.room(live, sleeps: sleeps)
            live.front.answer(Self.messagePath, status: 503, retryAfter: "0")

            let receipt = try await alice.didSendMessage(roomId: "general", roomName: nil, senderName: nil, text: "hi")
            #expect(receipt.devices == 1)

            let attempts = live.front.seen(Self.messagePath)
            #expect(attempts.map(\.scriptedStatus) == [503, nil])
            #expect(attempts[0].idempotencyKey != nil)
            #expect(attempts[0].idempotencyKey == attempts[1].idempotencyKey)
            #expect(sleeps.seconds.count == 1)
            try await waitUntil("the push to Bob") { try live.pushes(to: bobToken).count == 1 }
            #expect(live.mock.requests.count == 1)
        }
    }

    @Test("A 429 is retried no sooner than its Retry-After")
    func tooManyRequests() async throws {
        try await withLiveRelay { live in
            let sleeps = SleepLog()
            let (alice, bobToken) = try await Self.room(live, sleeps: sleeps)
            live.front.answer(Self.messagePath, status: 429, retryAfter: "1")

            try await alice.didSendMessage(roomId: "general", roomName: "General", senderName: "Alice", text: "hi")
            #expect(live.front.seen(Self.messagePath).map(\.scriptedStatus) == [429, nil])
            #expect(sleeps.seconds.count == 1)
            #expect(sleeps.seconds.allSatisfy { $0 >= 1 })
            try await waitUntil("the push to Bob") { try live.pushes(to: bobToken).count == 1 }
        }
    }

    @Test("A Retry-After longer than maxDelay ends the call with the relay's error and the wait it asked for")
    func retryAfterTooLong() async throws {
        try await withLiveRelay { live in
            let sleeps = SleepLog()
            let (alice, _) = try await Self.room(live, sleeps: sleeps)
            live.front.answer(Self.messagePath, status: 429, retryAfter: "120")

            let error = await #expect(throws: PushRelayError.self) {
                try await alice.didSendMessage(roomId: "general", roomName: nil, senderName: nil, text: "hi")
            }
            #expect(error?.status == 429)
            #expect(error?.code.rawValue == "scripted_429")
            #expect(error?.retryAfter == 120)
            #expect(live.front.seen(Self.messagePath).count == 1)
            #expect(sleeps.seconds.isEmpty)
        }
    }

    @Test("5xx on every attempt ends after maxAttempts with the last answer")
    func serverErrorEveryTime() async throws {
        try await withLiveRelay { live in
            let sleeps = SleepLog()
            let retry = PushRelayClient.RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 1)
            let (alice, _) = try await Self.room(live, sleeps: sleeps, retry: retry)
            live.front.answer(Self.messagePath, status: 502, times: 10)

            let error = await #expect(throws: PushRelayError.self) {
                try await alice.didSendMessage(roomId: "general", roomName: nil, senderName: nil, text: "hi")
            }
            #expect(error?.status == 502)
            let attempts = live.front.seen(Self.messagePath)
            #expect(attempts.count == 3)
            #expect(Set(attempts.map(\.idempotencyKey)).count == 1)
            #expect(sleeps.seconds.count == 2)
            #expect(live.mock.requests.isEmpty)
        }
    }

    @Test("A refused connection is retried once the relay's address answers again")
    func networkFailure() async throws {
        try await withLiveRelay { live in
            let front = live.front
            await front.stop()
            let sleeps = SleepLog(beforeWaking: { try front.start() })
            let alice = live.client(userId: "alice", sleeps: sleeps)

            try await alice.registerDevice(token: ClientLiveTests.randomToken(), rooms: ["general"])
            #expect(sleeps.seconds.count == 1)
            #expect(try await live.devices(of: "alice").count == 1)
            #expect(front.seen("/v1/devices").count == 1)
        }
    }

    @Test("A 401 asks the credential closure to refresh once, and the call goes through with the new token")
    func unauthorizedOnce() async throws {
        try await withLiveRelay { live in
            let credentials = CredentialLog { refresh in
                refresh ? TestCredential.valid(for: "alice", in: live) : TestCredential.refused
            }
            let alice = live.client(userId: "alice", credential: credentials.closure)

            try await alice.registerDevice(token: ClientLiveTests.randomToken())
            #expect(credentials.refreshFlags == [false, true])
            let attempts = live.front.seen("/v1/devices")
            #expect(attempts.map(\.scriptedStatus) == [nil, nil])
            #expect(
                attempts.map(\.authorization) == [
                    "Bearer \(TestCredential.refused)", "Bearer \(TestCredential.valid(for: "alice", in: live))",
                ]
            )
            #expect(try await live.devices(of: "alice").count == 1)
        }
    }

    @Test("A second 401 after the refresh is the call's error; the closure is asked to refresh only once")
    func unauthorizedTwice() async throws {
        try await withLiveRelay { live in
            let credentials = CredentialLog { _ in TestCredential.refused }
            let alice = live.client(userId: "alice", credential: credentials.closure)

            let error = await #expect(throws: PushRelayError.self) {
                try await alice.joinRoom("general")
            }
            #expect(error?.status == 401)
            #expect(error?.code.rawValue == "invalid_credential")
            #expect(credentials.refreshFlags == [false, true])
            #expect(live.front.seen.count == 2)
        }
    }

    @Test("A 4xx other than 401 and 429 is not retried")
    func clientErrorNotRetried() async throws {
        try await withLiveRelay { live in
            let sleeps = SleepLog()
            let (alice, _) = try await Self.room(live, sleeps: sleeps)

            let error = await #expect(throws: PushRelayError.self) {
                try await alice.didSendMessage(roomId: "general", roomName: nil, senderName: nil, text: " \u{200B} ")
            }
            #expect(error?.status == 400)
            #expect(error?.code.rawValue == "invalid_field")
            #expect(live.front.seen(Self.messagePath).count == 1)
            #expect(sleeps.seconds.isEmpty)
        }
    }

    @Test("A credential closure that throws ends the call before any request")
    func credentialUnavailable() async throws {
        struct SignedOut: Error {}
        try await withLiveRelay { live in
            let alice = live.client(userId: "alice", credential: { _ in throw SignedOut() })
            let error = await #expect(throws: PushRelayError.self) {
                try await alice.joinRoom("general")
            }
            #expect(error?.code == .credentialUnavailable)
            #expect(error?.cause is SignedOut)
            #expect(live.front.seen.isEmpty)
        }
    }
}
