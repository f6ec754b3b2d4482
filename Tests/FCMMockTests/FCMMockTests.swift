import FCMCore
import FCMMock
import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import RelayFCM
import Testing

/// The mock FCM's own checks, driven with libcurl over TLS HTTP/2 (OutboundHTTP), in-process on port 0.
@Suite struct FCMMockTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../fixtures").standardized
    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    /// The account the mock trusts, and another key under the same name and key id.
    static let account = try! FCMServiceAccount(contentsOfFile: fixture("fcm/test-service-account.json"))
    static let otherKey = try! RS256Key.generate()
    static let token = String(repeating: "a", count: 40) + ":APA91b" + String(repeating: "b", count: 100)

    struct Mock {
        let server: MockFCMServer
        let base: String
        var tokenURI: String { base + MockFCMConfiguration.tokenPath }
        var sendURL: String { base + FCMLimits.sendPath(projectId: "chat-app-1234") }
    }

    static func start(timeSource: any TimeSource = SystemTimeSource(), recordFile: String? = nil) throws -> Mock {
        let server = MockFCMServer(
            configuration: MockFCMConfiguration(
                tls: .init(certificatePath: fixture("tls/server.pem"), privateKeyPath: fixture("tls/server.key")),
                accounts: [try MockFCMAccount(serviceAccount: account)],
                timeSource: timeSource,
                recordFile: recordFile
            )
        )
        try server.start()
        return Mock(server: server, base: "https://127.0.0.1:\(server.port)")
    }

    static func post(_ url: String, _ body: Data, _ headers: [(String, String)]) async throws -> (Int, [String: Any]) {
        let (status, data) = try await OutboundHTTP.post(
            url: url,
            body: body,
            headers: headers,
            timeout: .seconds(10),
            caFile: fixture("tls/ca.pem"),
            keepingBodyUpTo: 64 * 1024
        )
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (status, object)
    }

    static let form = [("Content-Type", "application/x-www-form-urlencoded")]

    /// A signed assertion for the account, with claims changed by `edit`, signed by `key`.
    static func assertion(
        for mock: Mock,
        key: RS256Key? = nil,
        now: Date = Date(),
        _ edit: (inout OAuthAssertion.Claims, inout OAuthAssertion.Header) -> Void = { _, _ in }
    ) throws -> String {
        let signer = try key ?? RS256Key(privateKeyPEM: account.privateKey)
        var header = OAuthAssertion.Header(kid: account.privateKeyId)
        let iat = Int(now.timeIntervalSince1970)
        var claims = OAuthAssertion.Claims(
            iss: account.clientEmail,
            scope: FCMLimits.messagingScope,
            aud: mock.tokenURI,
            iat: iat,
            exp: iat + 3600
        )
        edit(&claims, &header)
        return try CompactJWS.sign(header: header, payload: claims) { (input) throws(CryptoError) in
            try signer.sign(input)
        }.compact
    }

    static func tokenRequest(
        _ mock: Mock,
        assertion: String,
        grantType: String = FCMLimits.jwtBearerGrantType
    )
        async throws -> (Int, [String: Any])
    {
        let body =
            "grant_type=\(grantType.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&assertion=\(assertion)"
        return try await post(mock.tokenURI, Data(body.utf8), form)
    }

    static func accessToken(_ mock: Mock) async throws -> String {
        let (status, answer) = try await tokenRequest(mock, assertion: try assertion(for: mock))
        #expect(status == 200)
        return try #require(answer["access_token"] as? String)
    }

    @Test func aValidAssertionGetsABearerTokenForAnHour() async throws {
        let mock = try Self.start()
        defer { mock.server.stop() }
        let (status, answer) = try await Self.tokenRequest(mock, assertion: try Self.assertion(for: mock))
        #expect(status == 200)
        #expect(answer["token_type"] as? String == "Bearer")
        #expect(answer["expires_in"] as? Int == 3599)
        #expect((answer["access_token"] as? String)?.hasPrefix("ya29.") == true)
        #expect(mock.server.accessTokensIssued == 1)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var error: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        .init(name: "signed by another key", error: "invalid_grant"),
        .init(name: "unknown issuer", error: "invalid_grant"),
        .init(name: "another key id", error: "invalid_grant"),
        .init(name: "alg HS256", error: "invalid_grant"),
        .init(name: "aud another URL", error: "invalid_grant"),
        .init(name: "iat in the future", error: "invalid_grant"),
        .init(name: "lives longer than an hour", error: "invalid_grant"),
        .init(name: "expired", error: "invalid_grant"),
        .init(name: "no messaging scope", error: "invalid_scope"),
        .init(name: "not a JWT", error: "invalid_grant"),
        .init(name: "another grant type", error: "unsupported_grant_type"),
    ]

    @Test(arguments: refusals)
    func theTokenEndpointRefusesWhatGoogleRefuses(refusal: Refusal) async throws {
        let mock = try Self.start()
        defer { mock.server.stop() }
        let now = Date()
        var grantType = FCMLimits.jwtBearerGrantType
        let assertion: String
        switch refusal.name {
        case "signed by another key": assertion = try Self.assertion(for: mock, key: Self.otherKey)
        case "unknown issuer": assertion = try Self.assertion(for: mock) { claims, _ in claims.iss = "x@y.z" }
        case "another key id": assertion = try Self.assertion(for: mock) { _, header in header.kid = "other" }
        case "alg HS256": assertion = try Self.assertion(for: mock) { _, header in header.alg = "HS256" }
        case "aud another URL":
            assertion = try Self.assertion(for: mock) { claims, _ in claims.aud = "https://oauth2.googleapis.com/token"
            }
        case "iat in the future": assertion = try Self.assertion(for: mock, now: now + 600)
        case "lives longer than an hour":
            assertion = try Self.assertion(for: mock) { claims, _ in claims.exp = claims.iat + 3601 }
        case "expired": assertion = try Self.assertion(for: mock, now: now - 3700)
        case "no messaging scope":
            assertion = try Self.assertion(for: mock) { claims, _ in
                claims.scope = "https://www.googleapis.com/auth/cloud-platform"
            }
        case "not a JWT": assertion = "not.a.jwt"
        default:
            assertion = try Self.assertion(for: mock)
            grantType = "client_credentials"
        }
        let (status, answer) = try await Self.tokenRequest(mock, assertion: assertion, grantType: grantType)
        #expect(status == 400)
        #expect(answer["error"] as? String == refusal.error)
        #expect(answer["error_description"] is String)
        #expect(mock.server.accessTokensIssued == 0)
    }

    struct BadMessage: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var field: String?
        var testDescription: String { name }
    }

    static func message(_ fields: String) -> String { #"{"message":{"token":"\#(token)"\#(fields)}}"# }

    static let badMessages: [BadMessage] = [
        .init(name: "a number in data", body: message(#","data":{"count":12}"#), field: "message.data[count].value"),
        .init(name: "a boolean in data", body: message(#","data":{"seen":true}"#), field: "message.data[seen].value"),
        .init(
            name: "a reserved data key",
            body: message(#","data":{"google.x":"1"}"#),
            field: "message.data[google.x].key"
        ),
        .init(name: "an unknown message field", body: message(#","colour":"red""#), field: "message.colour"),
        .init(
            name: "an unknown top-level field",
            body: #"{"message":{"token":"\#(token)"},"extra":1}"#,
            field: "extra"
        ),
        .init(name: "a ttl without unit", body: message(#","android":{"ttl":"86400"}"#), field: "message.android.ttl"),
        .init(
            name: "a ttl over 28 days",
            body: message(#","android":{"ttl":"2419201s"}"#),
            field: "message.android.ttl"
        ),
        .init(
            name: "a lowercase priority",
            body: message(#","android":{"priority":"high"}"#),
            field: "message.android.priority"
        ),
        .init(
            name: "a number as title",
            body: message(#","notification":{"title":1}"#),
            field: "message.notification.title"
        ),
        .init(name: "no token", body: #"{"message":{"data":{"a":"b"}}}"#, field: "message.token"),
        .init(name: "a malformed token", body: #"{"message":{"token":"not a token"}}"#, field: nil),
        .init(name: "not JSON", body: "message", field: "message"),
        .init(
            name: "over 4096 bytes",
            body: message(#","data":{"x":"\#(String(repeating: "y", count: 4100))"}"#),
            field: nil
        ),
    ]

    @Test(arguments: badMessages)
    func malformedMessagesAreInvalidArgument(bad: BadMessage) async throws {
        let mock = try Self.start()
        defer { mock.server.stop() }
        let bearer = try await Self.accessToken(mock)
        let (status, answer) = try await Self.post(
            mock.sendURL,
            Data(bad.body.utf8),
            [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json")]
        )
        #expect(status == 400)
        let error = try #require(answer["error"] as? [String: Any])
        #expect(error["status"] as? String == "INVALID_ARGUMENT")
        #expect(error["code"] as? Int == 400)
        let details = error["details"] as? [[String: Any]] ?? []
        let fields = details.flatMap {
            ($0["fieldViolations"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
        }
        if let field = bad.field { #expect(fields == [field], "\(answer)") }
        if bad.name == "a malformed token" {
            #expect((error["message"] as? String)?.contains("registration token") == true)
        }
        #expect(mock.server.requests.last?.status == 400)
    }

    @Test func aWellFormedMessageIsSentAndNamed() async throws {
        let mock = try Self.start()
        defer { mock.server.stop() }
        let bearer = try await Self.accessToken(mock)
        let body = Self.message(
            #","data":{"a":"b"},"android":{"priority":"NORMAL","ttl":"3.5s","notification":{"tag":"t"}}"#
        )
        let (status, answer) = try await Self.post(
            mock.sendURL,
            Data(body.utf8),
            [("Authorization", "Bearer \(bearer)")]
        )
        #expect(status == 200)
        let name = try #require(answer["name"] as? String)
        #expect(name.hasPrefix("projects/chat-app-1234/messages/0:"))
        #expect(mock.server.requests.map(\.name) == [name])
        #expect(mock.server.requests.first?.body == body)
    }

    @Test func bearerAndProjectAreChecked() async throws {
        let time = ManualTimeSource(now: Date())
        let mock = try Self.start(timeSource: time)
        defer { mock.server.stop() }
        let body = Data(Self.message("").utf8)
        let (missing, _) = try await Self.post(mock.sendURL, body, [])
        #expect(missing == 401)
        let (unknown, answer) = try await Self.post(mock.sendURL, body, [("Authorization", "Bearer ya29.forged")])
        #expect(unknown == 401)
        #expect((answer["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
        #expect((answer["error"] as? [String: Any])?["details"] == nil)
        let bearer = try await Self.accessToken(mock)
        let authorization = [("Authorization", "Bearer \(bearer)")]
        let otherProject = mock.base + FCMLimits.sendPath(projectId: "someone-elses")
        #expect(try await Self.post(otherProject, body, authorization).0 == 403)
        #expect(
            try await Self.post(mock.base + "/v1/projects/chat-app-1234/messages:list", body, authorization).0 == 404
        )
        #expect(try await Self.post(mock.sendURL, body, authorization).0 == 200)
        time.advance(by: .seconds(3600))
        #expect(try await Self.post(mock.sendURL, body, authorization).0 == 401)
    }

    @Test func aScriptFileIsReadAndAnUnknownErrorIsRefused() throws {
        let script = try MockFCMScript(contentsOf: URL(fileURLWithPath: Self.fixture("fcm/mock-script.json")))
        #expect(script.devices.contains { $0.error == "UNREGISTERED" })
        let typo = Data(#"{"devices":[{"token":"*","error":"UNREGISTRED"}]}"#.utf8)
        let error = #expect(throws: MockFCMError.self) { try MockFCMScript(json: typo) }
        #expect(error?.code == .script)
        #expect(error?.description.contains("'UNREGISTRED' is not an FCM errorCode") == true)
        let withStatus = Data(#"{"devices":[{"token":"*","error":"SOMETHING_NEW","status":409}]}"#.utf8)
        #expect(try MockFCMScript(json: withStatus).devices.first?.status == 409)
    }

    @Test func theRecordFileHoldsOneJSONLinePerAnsweredMessage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-record-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("record.jsonl").path
        let mock = try Self.start(recordFile: path)
        let bearer = try await Self.accessToken(mock)
        for _ in 0..<2 {
            _ = try await Self.post(mock.sendURL, Data(Self.message("").utf8), [("Authorization", "Bearer \(bearer)")])
        }
        mock.server.stop()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let decoded = try lines.map { try JSONDecoder().decode(RecordedMessage.self, from: Data($0.utf8)) }
        // The time goes through a JSON double: equal to the microsecond.
        let kept = mock.server.requests
        #expect(decoded.map(\.name) == kept.map(\.name) && decoded.map(\.body) == kept.map(\.body))
        #expect(zip(decoded, kept).allSatisfy { abs($0.time.timeIntervalSince($1.time)) < 0.000_01 })
        #expect(decoded.allSatisfy { $0.status == 200 && $0.token == Self.token })
    }
}
