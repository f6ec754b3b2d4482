import Foundation
import RelayCore
import RelayCrypto
import RelayStore
import Testing

/// User credentials for harness relays: ES256 JWTs signed by one key per test process, which every app
/// configured with ``RelayHarness/withUserAuth`` trusts through a PEM file.
enum UserCredentials {
    static let issuer = "https://auth.example.test"
    static let audience = "push-relay-tests"
    static let keyId = "user-key-1"

    /// The signing key and the file its public half is in.
    static let key: (signer: ES256Key, publicKeyFile: String) = {
        let signer = try! ES256Key.generate()
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-user-key-\(UUID().uuidString.lowercased()).pem").path
        try! Data(signer.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: path))
        return (signer, path)
    }()

    /// A JWT for `user`, valid for an hour from now.
    static func token(for user: String, expiresIn seconds: Int = 3600) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "typ": "JWT", "kid": keyId])
        let claims = try JSONSerialization.data(
            withJSONObject: ["sub": user, "iss": issuer, "aud": audience, "iat": now, "exp": now + seconds]
        )
        let input = base64URL(header) + "." + base64URL(claims)
        return input + "." + base64URL(try key.signer.sign(Data(input.utf8)))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension RelayHarness {
    /// A `configure` for ``withRelayAndMock(appCount:script:configure:_:)``: every app takes user JWTs
    /// signed by ``UserCredentials/key``.
    static func withUserAuth(_ configuration: inout Configuration) {
        for index in configuration.apps.indices {
            configuration.apps[index].userAuth = Configuration.UserAuth(
                jwt: .init(
                    publicKeyFiles: [UserCredentials.key.publicKeyFile],
                    issuer: UserCredentials.issuer,
                    audience: UserCredentials.audience
                )
            )
        }
    }

    /// ``call(_:_:json:body:key:authorize:headers:)`` as `user` of the first app (a user credential and
    /// `X-PushRelay-App`).
    func call(_ method: String, _ path: String, json: Any? = nil, user: String) async throws -> APIResponse {
        try await call(
            method,
            path,
            json: json,
            key: try UserCredentials.token(for: user),
            headers: ["X-PushRelay-App": app.id]
        )
    }

    /// What the first app's store holds of the users and rooms the authorization tests use, to show a
    /// refused call changed nothing.
    struct StoreState: Equatable {
        var devices: [[Device]]
        var members: [[RoomMember]]
        var rooms: [RoomMembership?]
        var pending: Int
    }

    func state(
        users: [String] = ["alice", "bob", "carol"],
        rooms: [String] = ["open-room", "closed-room", "bobs-room"]
    )
        async throws -> StoreState
    {
        let store = try relay.store
        var state = StoreState(devices: [], members: [], rooms: [], pending: try await store.pendingDeliveryCount())
        for user in users { state.devices.append(try await store.devices(appId: app.id, userId: user)) }
        for room in rooms {
            state.members.append(try await store.members(appId: app.id, roomId: room))
            state.rooms.append(try await store.roomMembership(appId: app.id, roomId: room))
        }
        return state
    }
}
