import APNsCore
import APNsMock
import Foundation
import RelayCore
import RelayCrypto

/// Keys, certificates and helpers shared by the mock's tests (all read-only).
enum MockFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../fixtures"
    )
    .standardized

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static let teamA = "TEAM123456"
    static let keyIdA = "ABC123DEFG"
    static let teamB = "TEAM654321"
    static let keyIdB = "XYZ987WXYZ"

    static func privateKey(_ keyId: String) throws -> ES256Key {
        try ES256Key(privateKeyPEM: String(contentsOfFile: path("keys/AuthKey_\(keyId).p8"), encoding: .utf8))
    }

    static func publicKey(_ keyId: String) throws -> ES256Key {
        try ES256Key(publicKeyPEM: String(contentsOfFile: path("keys/AuthKey_\(keyId).p8"), encoding: .utf8))
    }

    /// Both fixture keys: A belongs to team A, B to team B.
    static func providerKeys() throws -> [String: (teamId: String, key: ES256Key)] {
        [keyIdA: (teamA, try publicKey(keyIdA)), keyIdB: (teamB, try publicKey(keyIdB))]
    }

    /// `authorization: bearer <JWT>` for a key, issued at `issuedAt` (epoch seconds).
    static func authorization(keyId: String = keyIdA, teamId: String = teamA, issuedAt: Int) throws -> String {
        let jwt = try JSONWebToken.sign(keyId: keyId, teamId: teamId, issuedAt: issuedAt, key: privateKey(keyId))
        return "authorization: bearer \(jwt.compact)"
    }

    static let token = String(repeating: "ab", count: 32)
    static let otherToken = String(repeating: "cd", count: 32)
    static let payload = Data(#"{"aps":{"alert":"hi"}}"#.utf8)
    /// A wake push's payload: `aps` holds only content-available.
    static let wakePayload = Data(#"{"aps":{"content-available":1},"dittoChatRoomId":"r1"}"#.utf8)
    static let topic = "apns-topic: com.example.chat"

    /// Starts a server; the caller stops it.
    static func start(_ configuration: MockAPNsConfiguration) throws -> MockAPNsServer {
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        return server
    }
}
