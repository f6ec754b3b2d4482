import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's side of PushRelay: registers this device's APNs token for the signed-in user, keeps the user's
/// room memberships, and forwards the Ditto chat SDK's `didSendMessage` / `didSendImageMessage` calls as the
/// relay's webhooks, so the other members' devices get a notification.
///
/// Every call authenticates as the user: `Authorization: Bearer <credential>` (the token the app also gives
/// Ditto's `login(token:provider:)`) and `X-PushRelay-App: <appId>`. A 401 asks the credential closure for
/// a fresh token once and sends again; 429, 5xx and network failures are retried with back-off (see
/// ``RetryPolicy`` and docs/client.md). An actor: calls may come from any task, the main actor included.
public actor PushRelayClient {
    /// The APNs environment the app's tokens belong to: `sandbox` for builds signed for development (the
    /// `aps-environment` entitlement `development`), `production` for TestFlight and the App Store. It comes
    /// from the app, never from the build type: a debug build may be signed either way.
    public enum Environment: String, Sendable, CaseIterable {
        case sandbox
        case production
    }

    /// Gives the user credential: `refresh` is false before a call, true once after the relay answered 401
    /// (then the closure should fetch a new token, not return a cached one). An error it throws ends the
    /// call with ``PushRelayError/Code-swift.struct/credentialUnavailable``.
    public typealias Credential = @Sendable (_ refresh: Bool) async throws -> String

    /// The relay's base URL, e.g. `https://push.example.com` (a path prefix is kept).
    public nonisolated let baseURL: URL
    /// The app's id in the relay's configuration (`apps[].id`), sent as `X-PushRelay-App`.
    public nonisolated let appId: String
    /// The signed-in user's id, the one the app gives the chat SDK (`setUserId`).
    public nonisolated let userId: String
    /// Where this device's token is registered.
    public nonisolated let environment: Environment
    /// This device's APNs token as lowercase hex, once ``registerDevice(token:rooms:)`` was called: sent as
    /// `senderDeviceToken` with each message, so the sender's own device is left out.
    public private(set) var deviceToken: String?

    let transport: RelayTransport

    /// - Parameters:
    ///   - baseURL: the relay, `https` in production (App Transport Security refuses plain HTTP).
    ///   - appId: `apps[].id` of the app in the relay's configuration.
    ///   - userId: the signed-in user's id.
    ///   - environment: the APNs environment of this build's tokens.
    ///   - session: the URLSession requests go through.
    ///   - retry: how 429, 5xx and network failures are retried.
    ///   - credential: the user credential (see ``Credential``).
    public init(
        baseURL: URL,
        appId: String,
        userId: String,
        environment: Environment,
        session: URLSession = .shared,
        retry: RetryPolicy = RetryPolicy(),
        credential: @escaping Credential
    ) {
        self.init(
            baseURL: baseURL,
            appId: appId,
            userId: userId,
            environment: environment,
            transport: RelayTransport(
                baseURL: baseURL,
                appId: appId,
                session: session,
                retry: retry,
                credential: credential,
                sleep: RelayTransport.taskSleep
            )
        )
    }

    init(baseURL: URL, appId: String, userId: String, environment: Environment, transport: RelayTransport) {
        self.baseURL = baseURL
        self.appId = appId
        self.userId = userId
        self.environment = environment
        self.transport = transport
    }

    /// Registers this device for the user (`POST /v1/devices`) in ``environment``, adding the user to
    /// `rooms`, and remembers the token for ``deviceToken``. Registering again (a new token after a restore,
    /// another user signing in) updates the device. Call it from
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`, beside the chat SDK's
    /// `registerDeviceToken(_:)`.
    ///
    /// - Parameter token: the token APNs gave the app, as `Data`.
    /// - Throws: ``PushRelayError``.
    public func registerDevice(token: Data, rooms: [String] = []) async throws {
        let hex = Self.hexString(deviceToken: token)
        deviceToken = hex
        let body = DeviceRegistrationBody(
            token: hex,
            userId: userId,
            environment: environment.rawValue,
            rooms: rooms.isEmpty ? nil : rooms
        )
        _ = try await transport.send(try RelayCall(method: "POST", path: ["v1", "devices"], json: body))
    }

    /// Removes this device from the relay (`DELETE /v1/devices/{token}`), e.g. when the user signs out; a
    /// device the relay no longer has for this user (404, also when another user registered it since)
    /// counts as removed. Does nothing before ``registerDevice(token:rooms:)``.
    ///
    /// - Throws: ``PushRelayError``.
    public func unregisterDevice() async throws {
        guard let token = deviceToken else { return }
        var call = RelayCall(method: "DELETE", path: ["v1", "devices", token])
        call.alsoSuccessful = [404]
        _ = try await transport.send(call)
        if deviceToken == token { deviceToken = nil }
    }

    /// Adds the user to a room (`PUT /v1/rooms/{roomId}/members/{userId}`), so its messages notify this
    /// user's devices. Joining twice is harmless.
    ///
    /// - Throws: ``PushRelayError``.
    public func joinRoom(_ roomId: String) async throws {
        _ = try await transport.send(RelayCall(method: "PUT", path: ["v1", "rooms", roomId, "members", userId]))
    }

    /// Takes the user out of a room (`DELETE /v1/rooms/{roomId}/members/{userId}`); leaving a room the user is
    /// not in is harmless.
    ///
    /// - Throws: ``PushRelayError``.
    public func leaveRoom(_ roomId: String) async throws {
        _ = try await transport.send(RelayCall(method: "DELETE", path: ["v1", "rooms", roomId, "members", userId]))
    }
}
