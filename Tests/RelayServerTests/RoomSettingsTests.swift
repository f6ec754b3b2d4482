import Foundation
import Testing

/// `PUT`/`GET /v1/rooms/{roomId}` with the backend's key, and user credentials for an app without `userAuth`.
@Suite struct RoomSettingsTests {
    @Test func theBackendOpensAndClosesARoomAndTheAppsSettingIsTheDefault() async throws {
        try await withRelayAndMock(configure: { $0.apps[0].roomMembership = .closed }) { relay in
            let unset = try await relay.call("GET", "/v1/rooms/lobby")
            #expect(unset.status == 200 && unset.text == #"{"membership":"closed","roomId":"lobby"}"#)
            let opened = try await relay.call("PUT", "/v1/rooms/lobby", json: ["membership": "open"])
            #expect(opened.status == 200 && opened.text == #"{"membership":"open","roomId":"lobby"}"#)
            #expect(try await relay.call("GET", "/v1/rooms/lobby").text.contains(#""membership":"open""#))
            #expect(try await relay.call("GET", "/v1/rooms/other").text.contains(#""membership":"closed""#))
            let closed = try await relay.call("PUT", "/v1/rooms/lobby", json: ["membership": "closed"])
            #expect(closed.status == 200 && closed.text.contains(#""membership":"closed""#))

            let wrong = try await relay.call("PUT", "/v1/rooms/lobby", json: ["membership": "ajar"])
            #expect(wrong.status == 400 && wrong.error?.code == "invalid_field")
            #expect(wrong.error?.message.contains("open, closed") == true)
            let missing = try await relay.call("PUT", "/v1/rooms/lobby", json: [String: String]())
            #expect(missing.status == 400 && missing.error?.code == "missing_field")
            let extra = try await relay.call("PUT", "/v1/rooms/lobby", json: ["membership": "open", "x": 1])
            #expect(extra.status == 400 && extra.error?.code == "unknown_field")
            // The backend still manages a closed room's members.
            try await relay.join("lobby", "alice")
        }
    }

    @Test func aUserCredentialNeedsAnAppThatTakesThem() async throws {
        try await withRelayAndMock { relay in
            let noUserAuth = try await relay.call(
                "GET",
                "/v1/users/alice/devices",
                key: "a-user-token",
                headers: ["X-PushRelay-App": relay.app.id]
            )
            #expect(noUserAuth.status == 401 && noUserAuth.error?.code == "invalid_credential")
            let unknown = try await relay.call(
                "GET",
                "/v1/users/alice/devices",
                key: "a-user-token",
                headers: ["X-PushRelay-App": "nope"]
            )
            #expect(unknown.status == 401 && unknown.body == noUserAuth.body, "one answer for both")
            #expect(unknown.header("WWW-Authenticate") == "Bearer")
        }
    }
}
