import Foundation
import RelayCore
import RelayHTTP
import RelayStore

extension RelayAPI {
    /// `POST /v1/devices`: 201 new, 200 updated (a retired token is revived).
    func registerDevice(_ request: HTTPRequest) async throws -> HTTPResponse {
        let app = try directory.authenticate(request)
        let body = try request.decode(DeviceRegistration.self)
        let token = try Validation.token(body.token)
        let userId = try Validation.id(body.userId, field: "userId")
        let environment = try Validation.environment(body.environment, default: app.defaultEnvironment)
        let rooms = try (body.rooms ?? []).enumerated().map { index, room throws(HTTPError) in
            try Validation.id(room, field: "rooms[\(index)]")
        }
        let (device, created) = try await store.upsertDevice(
            appId: app.id,
            token: token,
            userId: userId,
            environment: environment,
            rooms: rooms,
            at: time.now
        )
        logger.info(
            created ? "device registered" : "device updated",
            ["app.id": app.id, "token.suffix": token.suffix, "request.id": request.id]
        )
        return try .json(status: created ? 201 : 200, DeviceView(device))
    }

    /// `DELETE /v1/devices/{token}`: 204, or 404 when the app has no such device.
    func deleteDevice(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let app = try directory.authenticate(request)
        let token = try Validation.token(try parameters.require("token"))
        guard try await store.deleteDevice(appId: app.id, token: token) else {
            throw HTTPError.notFound(message: "No device with that token")
        }
        return .noContent
    }

    /// `GET /v1/users/{userId}/devices`.
    func userDevices(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let app = try directory.authenticate(request)
        let userId = try Validation.id(try parameters.require("userId"), field: "userId")
        let devices = try await store.devices(appId: app.id, userId: userId)
        return try .json(DeviceList(devices: devices.map(DeviceView.init)))
    }

    /// `PUT /v1/rooms/{roomId}/members/{userId}` with an optional `{"muted": Bool}`: 204.
    func joinRoom(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let app = try directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let userId = try Validation.id(try parameters.require("userId"), field: "userId")
        let update = request.body.isEmpty ? MembershipUpdate() : try request.decode(MembershipUpdate.self)
        try await store.addMember(appId: app.id, roomId: roomId, userId: userId, muted: update.muted, at: time.now)
        return .noContent
    }

    /// `DELETE /v1/rooms/{roomId}/members/{userId}`: 204 (also when the user was not a member).
    func leaveRoom(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let app = try directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let userId = try Validation.id(try parameters.require("userId"), field: "userId")
        _ = try await store.removeMember(appId: app.id, roomId: roomId, userId: userId)
        return .noContent
    }

    /// `GET /v1/rooms/{roomId}/members`: `{"members": [userId]}`.
    func roomMembers(_ request: HTTPRequest, _ parameters: RouteParameters) async throws -> HTTPResponse {
        let app = try directory.authenticate(request)
        let roomId = try Validation.id(try parameters.require("roomId"), field: "roomId")
        let members = try await store.members(appId: app.id, roomId: roomId)
        return try .json(MemberList(members: members.map(\.userId)))
    }
}
