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
    /// This device's APNs token as lowercase hex, as registered by ``registerDevice(token:rooms:)`` (or as
    /// a registration without an answer may have registered it): sent as `senderDeviceToken` with each
    /// message, so the sender's own device is left out; nil before and after ``unregisterDevice()``.
    public private(set) var deviceToken: String?

    let transport: RelayTransport

    /// Whether a device call (a registration or a removal) runs, and the calls waiting for it: they run one
    /// at a time, in the order made, so a sign-out made while a registration is on its way removes what that
    /// registration made.
    private var deviceCallRunning = false
    private var deviceCallsWaiting: [CheckedContinuation<Void, Never>] = []
    /// Tokens this client registered, or may have, that a later registration replaced and whose removal has
    /// not succeeded yet.
    private var formerTokens: [String] = []

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
    /// `rooms`, and remembers the token for ``deviceToken``. Registering the same token again (another user
    /// signing in) moves the device to this user. A new token (APNs gives one after a restore) is a new
    /// device: the token before it is then removed from the relay. Call it from
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`, beside the chat SDK's
    /// `registerDeviceToken(_:)`.
    ///
    /// A registration the relay refuses (a 4xx), or that sends nothing (the credential or the base URL
    /// failed), leaves ``deviceToken`` as it was; one that ends without an answer, or with a 5xx, may have
    /// registered the token, so ``deviceToken`` takes it and ``unregisterDevice()`` removes both tokens.
    ///
    /// - Parameter token: the token APNs gave the app, as `Data`.
    /// - Throws: ``PushRelayError``.
    public func registerDevice(token: Data, rooms: [String] = []) async throws {
        let hex = Self.hexString(deviceToken: token)
        let body = DeviceRegistrationBody(
            token: hex,
            userId: userId,
            environment: environment.rawValue,
            rooms: rooms.isEmpty ? nil : rooms
        )
        let call = try RelayCall(method: "POST", path: ["v1", "devices"], json: body)
        try await oneDeviceCallAtATime {
            do {
                _ = try await transport.send(call)
            } catch let error as PushRelayError where !Self.mayHaveRegistered(error) {
                throw error
            } catch {
                adopt(hex)
                throw error
            }
            adopt(hex)
            // The replaced token's device gets no more pushes; one whose removal fails is tried again at the
            // next registration and at sign-out.
            for former in formerTokens where (try? await removeDevice(former)) != nil {
                formerTokens.removeAll { $0 == former }
            }
        }
    }

    /// Removes this device from the relay (`DELETE /v1/devices/{token}`), e.g. when the user signs out, once
    /// any registration made before it has ended, with any token it replaced that is not removed yet; the
    /// relay's 404 (also when another user registered the token since) counts as removed. Sends nothing when
    /// no token is known: a client made after a relaunch knows none until ``registerDevice(token:rooms:)``,
    /// so pass the token to ``unregisterDevice(token:)`` instead.
    ///
    /// A registration cancelled while its request was on its way may still reach the relay after this
    /// removal (a request delayed in the network): the device is then registered again.
    ///
    /// - Throws: ``PushRelayError``.
    public func unregisterDevice() async throws {
        try await oneDeviceCallAtATime {
            for former in formerTokens {
                try await removeDevice(former)
                formerTokens.removeAll { $0 == former }
            }
            guard let token = deviceToken else { return }
            try await removeDevice(token)
            deviceToken = nil
        }
    }

    /// Removes the device of `token` (the token APNs gave the app) from the relay, as ``unregisterDevice()``
    /// does for the registered one: for a sign-out before any registration of this client.
    ///
    /// - Throws: ``PushRelayError``.
    public func unregisterDevice(token: Data) async throws {
        let hex = Self.hexString(deviceToken: token)
        try await oneDeviceCallAtATime {
            try await removeDevice(hex)
            formerTokens.removeAll { $0 == hex }
            if deviceToken == hex { deviceToken = nil }
        }
    }

    /// Takes `hex` as ``deviceToken``, keeping the token it replaces among ``formerTokens``.
    private func adopt(_ hex: String) {
        if let previous = deviceToken, previous != hex, !formerTokens.contains(previous) {
            formerTokens.append(previous)
        }
        formerTokens.removeAll { $0 == hex }
        deviceToken = hex
    }

    /// Whether a failed registration may have registered its token: not when the relay refused it (a 4xx),
    /// nor when nothing was sent (the credential closure or the base URL failed first).
    private static func mayHaveRegistered(_ error: PushRelayError) -> Bool {
        if let status = error.status, (400..<500).contains(status) { return false }
        return error.code != .credentialUnavailable && error.code != .invalidBaseURL
    }

    private func removeDevice(_ hex: String) async throws {
        var call = RelayCall(method: "DELETE", path: ["v1", "devices", hex])
        call.notFoundIsDone = true
        _ = try await transport.send(call)
    }

    /// Runs `body` once no other device call runs, after those made before it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled by the time its turn comes (a cancelled call
    ///   still waits for the one before it to end); what `body` throws.
    private func oneDeviceCallAtATime(_ body: () async throws -> Void) async throws {
        if deviceCallRunning {
            await withCheckedContinuation { deviceCallsWaiting.append($0) }
        } else {
            deviceCallRunning = true
        }
        defer {
            if deviceCallsWaiting.isEmpty {
                deviceCallRunning = false
            } else {
                deviceCallsWaiting.removeFirst().resume()
            }
        }
        try Task.checkCancellation()
        try await body()
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
