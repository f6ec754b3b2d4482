import FCMCore
import FCMMock
import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import RelayFCM
import Testing

/// The FCM client against the real mock FCM over HTTP/2 (TLS and h2c), in-process on port 0.
@Suite struct FCMClientMockTests {
    static let policy = RetryPolicy(maxAttempts: 5, baseDelayMilliseconds: 1000, maxDelayMilliseconds: 60_000)

    @Test(arguments: [true, false])
    func theMockReceivesExactlyTheMessagesJSON(tls: Bool) async throws {
        let harness = try FCMHarness.start(tls: tls)
        let message = FCMHarness.message(1, text: "See you at 5/6? 😀")
        let response = try await harness.client.send(message)
        await harness.stop()
        #expect(response.status == 200)
        let recorded = try #require(harness.mock.requests.first)
        #expect(recorded.body == String(decoding: try message.encoded(), as: UTF8.self))
        #expect(
            recorded.body
                == #"{"message":{"android":{"notification":{"tag":"dittochat-msg-msg-1"},"priority":"HIGH","#
                + #""ttl":"3600s"},"#
                + #""data":{"dittoChatMessageId":"msg-1","dittoChatRoomId":"room-7"},"#
                + #""notification":{"body":"Alice: See you at 5/6? 😀","title":"Team"},"#
                + #""token":"\#(FCMHarness.token(1).value)"}}"#
        )
        #expect(recorded.token == FCMHarness.token(1).value)
        #expect(recorded.projectId == "chat-app-1234")
        #expect(response.name == recorded.name)
        #expect(response.name?.hasPrefix("projects/chat-app-1234/messages/0:") == true)
    }

    @Test func oneAccessTokenServesAThousandSendsAndIsRenewedAfterItsLife() async throws {
        let time = ManualTimeSource()
        let harness = try FCMHarness.start(timeSource: time)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<1000 { group.addTask { try await harness.client.send(FCMHarness.message(index)).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 1000))
        #expect(harness.mock.accessTokensIssued == 1)
        #expect(harness.client.accessTokensFetched == 1)
        #expect(harness.mock.acceptedConnections == 1)

        // Google's tokens live 3599 s; the client renews 5 minutes before (3299 s), not sooner.
        time.advance(by: .seconds(3200))
        #expect(try await harness.client.send(FCMHarness.message(1)).status == 200)
        #expect(harness.mock.accessTokensIssued == 1)
        time.advance(by: .seconds(200))
        #expect(try await harness.client.send(FCMHarness.message(2)).status == 200)
        #expect(harness.mock.accessTokensIssued == 2)
        #expect(harness.client.accessTokensFetched == 2)
        #expect(harness.mock.answeredCount == 1002)
        await harness.stop()
    }

    /// One send through `client`: ``FCMClient/send(_:body:)``, or ``FCMClient/submit(_:to:completion:)`` (the
    /// outbox's path, answered on the driver thread) when `submit`.
    static func send(_ message: FCMMessage, with client: FCMClient, submit: Bool) async throws -> FCMResponse {
        let body = try message.encoded()
        guard submit else { return try await client.send(message, body: body) }
        return try await withCheckedThrowingContinuation { continuation in
            client.submit(body, to: message.token) { continuation.resume(with: $0) }
        }
    }

    @Test(arguments: [false, true])
    func a401RenewsTheAccessTokenOnceForAllTheSendsItRefused(submit: Bool) async throws {
        let harness = try FCMHarness.start()
        #expect(try await harness.client.send(FCMHarness.message(0)).status == 200)
        harness.mock.revokeAccessTokens()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 1...50 {
                group.addTask {
                    try await Self.send(FCMHarness.message(index), with: harness.client, submit: submit).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 50))
        #expect(harness.mock.accessTokensIssued == 2)
        // Sends that went out with the revoked token were refused and sent again; later ones used the new
        // token at once. Either way one exchange served them all.
        let refused = harness.mock.requests.filter { $0.status == 401 }
        #expect((1...50).contains(refused.count))
        #expect(refused.allSatisfy { $0.errorCode == "UNAUTHENTICATED" })
        #expect(harness.mock.answeredCount == 51 + refused.count)
        await harness.stop()
    }

    @Test(arguments: [false, true])
    func a401ThatPersistsIsReturnedAfterOneRenewal(submit: Bool) async throws {
        let script = MockFCMScript(devices: [.init(token: FCMHarness.token(3).value, error: "UNAUTHENTICATED")])
        let harness = try FCMHarness.start(script: script)
        #expect(try await harness.client.send(FCMHarness.message(0)).status == 200)
        let response = try await Self.send(FCMHarness.message(3), with: harness.client, submit: submit)
        #expect(response.status == 401)
        #expect(response.errorCode == nil)
        #expect(response.errorStatus == "UNAUTHENTICATED")
        #expect(harness.mock.answeredCount == 3)
        #expect(harness.mock.accessTokensIssued == 2)
        #expect(
            FCMDecision.decide(.answered(response), attempts: 1, policy: Self.policy, random: 0)
                == .credentialsRefused
        )
        await harness.stop()
    }

    /// The resend after a 401 keeps the send's deadline: a send is over one request timeout after it began,
    /// which the dispatcher counts on to leave a job's lease in time.
    @Test(arguments: [false, true])
    func theResendAfterA401EndsAtTheSendsDeadline(submit: Bool) async throws {
        let slow = MockFCMScript.DeviceRule(token: FCMHarness.token(3).value, error: "UNAUTHENTICATED", delayMs: 4_000)
        // 6 s, so the first send (a connection, an access token) ends in time on a loaded machine too.
        let harness = try FCMHarness.start(script: MockFCMScript(devices: [slow]), requestTimeout: .seconds(6))
        #expect(try await harness.client.send(FCMHarness.message(0)).status == 200)
        // Each answer takes 4 s: the resend cannot end within the 6 s the send has.
        let error = await #expect(throws: TransportError.self) {
            try await Self.send(FCMHarness.message(3), with: harness.client, submit: submit)
        }
        #expect(error?.code == .timeout)
        #expect(harness.mock.accessTokensIssued == 2)
        await harness.stop()
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var rule: MockFCMScript.DeviceRule
        var status: Int
        var expected: FCMDecision
        var testDescription: String { "\(rule.error ?? "200") \(rule.field ?? "") -> \(expected)" }
    }

    static let token = FCMHarness.token(9).value
    static let table: [Row] = [
        Row(rule: .init(token: token), status: 200, expected: .delivered),
        Row(rule: .init(token: token, error: "UNREGISTERED"), status: 404, expected: .retire(.unregistered)),
        Row(
            rule: .init(token: token, error: "SENDER_ID_MISMATCH"),
            status: 403,
            expected: .retire(.senderIdMismatch)
        ),
        Row(
            rule: .init(token: token, error: "INVALID_ARGUMENT", field: "message.token"),
            status: 400,
            expected: .retire(.invalidArgument)
        ),
        Row(rule: .init(token: token, error: "INVALID_ARGUMENT"), status: 400, expected: .fail(.rejected)),
        Row(
            rule: .init(token: token, error: "QUOTA_EXCEEDED", retryAfter: 30),
            status: 429,
            expected: .retry(after: .seconds(30))
        ),
        Row(rule: .init(token: token, error: "UNAVAILABLE"), status: 503, expected: .retry(after: .milliseconds(500))),
        Row(rule: .init(token: token, error: "INTERNAL"), status: 500, expected: .retry(after: .milliseconds(500))),
        Row(
            rule: .init(token: token, error: "UNSPECIFIED_ERROR"),
            status: 500,
            expected: .retry(after: .milliseconds(500))
        ),
        Row(
            rule: .init(token: token, error: "THIRD_PARTY_AUTH_ERROR"),
            status: 401,
            expected: .credentialsRefused
        ),
    ]

    @Test(arguments: table)
    func eachAnswerOfTheErrorTableHasItsFate(row: Row) async throws {
        let harness = try FCMHarness.start(script: MockFCMScript(devices: [row.rule]))
        let response = try await harness.client.send(FCMHarness.message(9))
        await harness.stop()
        #expect(response.status == row.status)
        #expect(FCMDecision.decide(.answered(response), attempts: 1, policy: Self.policy, random: 0) == row.expected)
        // A THIRD_PARTY_AUTH_ERROR is a 401 with an errorCode: no access-token renewal.
        #expect(harness.mock.answeredCount == 1)
        #expect(harness.mock.accessTokensIssued == 1)
    }

    @Test func aNeverAnsweredSendFailsAtItsDeadlineWhileOthersComplete() async throws {
        let silent = FCMHarness.token(5).value
        let harness = try FCMHarness.start(
            script: MockFCMScript(devices: [
                .init(token: silent, neverAnswer: true), .init(token: FCMHarness.token(6).value, delayMs: 100),
            ]),
            requestTimeout: .seconds(5)
        )
        // The access token and the connection first, so the sends below wait for nothing else (on a busy
        // machine signing and fetching the token can take much of a deadline).
        #expect(try await harness.client.send(FCMHarness.message(7)).status == 200)
        let stuck = Task { try await harness.client.send(FCMHarness.message(5)) }
        let delayed = try await harness.client.send(FCMHarness.message(6))
        let prompt = try await harness.client.send(FCMHarness.message(7))
        #expect(delayed.status == 200 && prompt.status == 200)
        let error = await #expect(throws: TransportError.self) { try await stuck.value }
        #expect(error?.code == .timeout)
        await harness.stop()
    }

    @Test func anAccountTheTokenEndpointRefusesFailsTheSendWithTheOAuthError() async throws {
        var stranger = FCMHarness.account
        stranger.clientEmail = "someone-else@chat-app-1234.iam.gserviceaccount.com"
        let harness = try FCMHarness.start(clientAccount: stranger)
        let error = await #expect(throws: AccessTokenError.self) {
            try await harness.client.send(FCMHarness.message(1))
        }
        #expect(error?.status == 400)
        #expect(error?.error == "invalid_grant")
        #expect(error?.isConfigurationProblem == true)
        // Nothing cached: the next send asks again.
        await #expect(throws: AccessTokenError.self) { try await harness.client.send(FCMHarness.message(1)) }
        #expect(harness.mock.answeredCount == 0)
        await harness.stop()
    }

    @Test func aLocallyRefusedMessageNeverLeaves() async throws {
        let harness = try FCMHarness.start()
        var message = FCMHarness.message(1)
        message.data["from"] = "x"
        await #expect(throws: FCMMessageError.self) { try await harness.client.send(message) }
        #expect(harness.mock.accessTokensIssued == 0)
        await harness.stop()
    }
}
