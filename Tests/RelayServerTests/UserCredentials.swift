import Foundation
import RelayCore
import RelayCrypto
import RelayStore
import RelayTestSupport
import Testing

extension RelayHarness {
    /// A `configure` for ``withRelayAndMock(appCount:script:configure:_:)``: every app takes user JWTs
    /// signed by ``UserTokenIssuer/shared``.
    static func withUserAuth(_ configuration: inout Configuration) {
        for index in configuration.apps.indices {
            configuration.apps[index].userAuth = UserTokenIssuer.shared.userAuth
        }
    }

    /// ``call(_:_:json:body:key:authorize:headers:)`` as `user` of the first app (a user credential and
    /// `X-PushRelay-App`).
    func call(_ method: String, _ path: String, json: Any? = nil, user: String) async throws -> APIResponse {
        try await call(
            method,
            path,
            json: json,
            key: try UserTokenIssuer.shared.token(for: user),
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
        rooms: [String] = ["open-room", "closed-room", "bobs-room", "staff-room"]
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
