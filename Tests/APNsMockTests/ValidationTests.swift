import APNsCore
import APNsMock
import Foundation
import RelayCore
import Testing

@Suite struct ValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "POST"
        var path = "/3/device/" + MockFixtures.token
        var headers: [String] = [MockFixtures.topic]
        var auth = true
        var body = MockFixtures.payload
        var status: Int
        var reason: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "valid", status: 200),
        Case(name: "GET", method: "GET", status: 405, reason: "MethodNotAllowed"),
        Case(name: "other path", path: "/3/devices/abcd", status: 404, reason: "BadPath"),
        Case(name: "empty token", path: "/3/device/", status: 400, reason: "MissingDeviceToken"),
        Case(name: "token not hex", path: "/3/device/zz" + MockFixtures.token, status: 400, reason: "BadDeviceToken"),
        Case(name: "odd token", path: "/3/device/abc", status: 400, reason: "BadDeviceToken"),
        Case(
            name: "duplicate header",
            headers: [MockFixtures.topic, "apns-priority: 10", "apns-priority: 5"],
            status: 400,
            reason: "DuplicateHeaders"
        ),
        Case(name: "no provider token", auth: false, status: 403, reason: "MissingProviderToken"),
        Case(
            name: "garbage provider token",
            headers: [MockFixtures.topic, "authorization: bearer not.a.jwt"],
            auth: false,
            status: 403,
            reason: "InvalidProviderToken"
        ),
        Case(name: "bad apns-id", headers: [MockFixtures.topic, "apns-id: 1234"], status: 400, reason: "BadMessageId"),
        Case(
            name: "apns-id of 36 characters with a hyphen misplaced",
            headers: [MockFixtures.topic, "apns-id: 123e4567e-89b-12d3-a456-426614174000"],
            status: 400,
            reason: "BadMessageId"
        ),
        Case(
            name: "apns-id with a letter past f",
            headers: [MockFixtures.topic, "apns-id: 123e4567-e89b-12d3-a456-42661417400g"],
            status: 400,
            reason: "BadMessageId"
        ),
        Case(
            name: "apns-id one digit too long",
            headers: [MockFixtures.topic, "apns-id: 123e4567-e89b-12d3-a456-4266141740000"],
            status: 400,
            reason: "BadMessageId"
        ),
        Case(
            name: "apns-id in upper case",
            headers: [MockFixtures.topic, "apns-id: 123E4567-E89B-12D3-A456-426614174000"],
            status: 200
        ),
        Case(
            name: "bad expiration",
            headers: [MockFixtures.topic, "apns-expiration: soon"],
            status: 400,
            reason: "BadExpirationDate"
        ),
        Case(
            name: "bad priority",
            headers: [MockFixtures.topic, "apns-priority: 7"],
            status: 400,
            reason: "BadPriority"
        ),
        Case(
            name: "unknown push type",
            headers: [MockFixtures.topic, "apns-push-type: fax"],
            status: 400,
            reason: "InvalidPushType"
        ),
        Case(
            name: "background at priority 10",
            headers: [MockFixtures.topic, "apns-push-type: background", "apns-priority: 10"],
            status: 400,
            reason: "BadPriority"
        ),
        Case(
            name: "background at priority 5 with content-available only",
            headers: [MockFixtures.topic, "apns-push-type: background", "apns-priority: 5"],
            body: MockFixtures.wakePayload,
            status: 200
        ),
        Case(
            name: "background without a priority (10 by default)",
            headers: [MockFixtures.topic, "apns-push-type: background"],
            body: MockFixtures.wakePayload,
            status: 400,
            reason: "BadPriority"
        ),
        Case(
            name: "background with an alert",
            headers: [MockFixtures.topic, "apns-push-type: background", "apns-priority: 5"],
            body: Data(#"{"aps":{"content-available":1,"alert":"hi"}}"#.utf8),
            status: 400,
            reason: "InvalidPushType"
        ),
        Case(
            name: "background with a sound",
            headers: [MockFixtures.topic, "apns-push-type: background", "apns-priority: 5"],
            body: Data(#"{"aps":{"content-available":1,"sound":"default"}}"#.utf8),
            status: 400,
            reason: "InvalidPushType"
        ),
        Case(
            name: "background with a badge",
            headers: [MockFixtures.topic, "apns-push-type: background", "apns-priority: 5"],
            body: Data(#"{"aps":{"content-available":1,"badge":2}}"#.utf8),
            status: 400,
            reason: "InvalidPushType"
        ),
        Case(
            name: "badge update: alert at priority 5 with only a badge",
            headers: [MockFixtures.topic, "apns-push-type: alert", "apns-priority: 5"],
            body: Data(#"{"aps":{"badge":0}}"#.utf8),
            status: 200
        ),
        Case(
            name: "background at priority 5 with only a badge",
            headers: [MockFixtures.topic, "apns-push-type: background", "apns-priority: 5"],
            body: Data(#"{"aps":{"badge":3}}"#.utf8),
            status: 400,
            reason: "InvalidPushType"
        ),
        Case(
            name: "priority 10 with content-available only",
            headers: [MockFixtures.topic, "apns-push-type: alert", "apns-priority: 10"],
            body: MockFixtures.wakePayload,
            status: 400,
            reason: "BadPriority"
        ),
        Case(
            name: "no priority with content-available only",
            headers: [MockFixtures.topic],
            body: MockFixtures.wakePayload,
            status: 400,
            reason: "BadPriority"
        ),
        Case(
            name: "priority 10 with content-available and an alert",
            headers: [MockFixtures.topic, "apns-priority: 10"],
            body: Data(#"{"aps":{"content-available":1,"alert":"hi"}}"#.utf8),
            status: 200
        ),
        Case(name: "no topic", headers: [], status: 400, reason: "MissingTopic"),
        Case(
            name: "voip without .voip topic",
            headers: [MockFixtures.topic, "apns-push-type: voip"],
            status: 400,
            reason: "BadTopic"
        ),
        Case(
            name: "topic not allowed",
            headers: ["apns-topic: com.other.app"],
            status: 400,
            reason: "TopicDisallowed"
        ),
        Case(
            name: "collapse id of 65 bytes",
            headers: [MockFixtures.topic, "apns-collapse-id: " + String(repeating: "x", count: 65)],
            status: 400,
            reason: "BadCollapseId"
        ),
        Case(name: "empty body", body: Data(), status: 400, reason: "PayloadEmpty"),
        Case(
            name: "4097 bytes",
            body: Data(#"{"a":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 4097 - 8) + Data(#""}"#.utf8),
            status: 413,
            reason: "PayloadTooLarge"
        ),
        Case(name: "body not an object", body: Data("[1]".utf8), status: 400, reason: "PayloadEmpty"),
        Case(
            name: "5000-byte voip is fine",
            headers: ["apns-topic: com.example.chat.voip", "apns-push-type: voip"],
            body: Data(#"{"a":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 5000) + Data(#""}"#.utf8),
            status: 200
        ),
    ]

    @Test(arguments: cases) func answersWithApplesStatusAndReason(_ testCase: Case) throws {
        let time = ManualTimeSource()
        let server = try MockFixtures.start(
            .init(
                providerKeys: MockFixtures.providerKeys(),
                allowedTopics: ["com.example.chat"],
                timeSource: time
            )
        )
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        var headers = testCase.headers
        if testCase.auth {
            headers.append(try MockFixtures.authorization(issuedAt: Int(time.now.timeIntervalSince1970)))
        }
        let response = client.send(method: testCase.method, path: testCase.path, headers: headers, body: testCase.body)
        #expect(response.httpVersion == 3)  // CURL_HTTP_VERSION_2_0
        #expect(response.status == testCase.status)
        #expect(response.reason == testCase.reason)
        #expect(response.headers["apns-id"] != nil)
        #expect(server.answeredCount == 1)
    }

    /// The mock skips parsing a body identical to the last valid one on a connection; the push type and
    /// priority it was valid with must be the same too, or a wake payload valid at 5 would pass at 10.
    @Test func aBodyValidAtPriority5IsRefusedAt10OnTheSameConnection() throws {
        let time = ManualTimeSource()
        let server = try MockFixtures.start(.init(providerKeys: MockFixtures.providerKeys(), timeSource: time))
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        let authorization = try MockFixtures.authorization(issuedAt: Int(time.now.timeIntervalSince1970))
        let path = "/3/device/" + MockFixtures.token
        let background = client.send(
            path: path,
            headers: [MockFixtures.topic, authorization, "apns-push-type: background", "apns-priority: 5"],
            body: MockFixtures.wakePayload
        )
        #expect(background.status == 200)
        let immediate = client.send(
            path: path,
            headers: [MockFixtures.topic, authorization, "apns-push-type: alert", "apns-priority: 10"],
            body: MockFixtures.wakePayload
        )
        #expect(immediate.status == 400)
        #expect(immediate.reason == "BadPriority")
        #expect(Set(server.requests.map(\.connectionId)).count == 1)
    }

    @Test func anUnknownKeyOrAWrongTeamIsAnInvalidProviderToken() throws {
        let time = ManualTimeSource()
        let keys = try MockFixtures.providerKeys()
        let server = try MockFixtures.start(
            .init(providerKeys: [MockFixtures.keyIdA: keys[MockFixtures.keyIdA]!], timeSource: time)
        )
        defer { server.stop() }
        let now = Int(time.now.timeIntervalSince1970)
        let path = "/3/device/" + MockFixtures.token
        let unknownKey = try MockFixtures.authorization(
            keyId: MockFixtures.keyIdB,
            teamId: MockFixtures.teamB,
            issuedAt: now
        )
        let wrongTeam = try MockFixtures.authorization(teamId: MockFixtures.teamB, issuedAt: now)
        for header in [unknownKey, wrongTeam] {
            let response = CurlH2Client(port: server.port).send(
                path: path,
                headers: [MockFixtures.topic, header],
                body: MockFixtures.payload
            )
            #expect(response.status == 403)
            #expect(response.reason == "InvalidProviderToken")
        }
    }
}
