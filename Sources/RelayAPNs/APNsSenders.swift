import Foundation
import RelayCore
import RelayCrypto
import Synchronization

/// One ``APNsClient`` per app and environment, made on first use, so one app's APNs trouble (a dead
/// connection, a bad key) never holds up another's deliveries. Clients of one app share one provider token
/// (Apple: one token per key, shared by every connection); with a ``RelayCore/ProviderTokenCache``, relays
/// sharing a database share it too.
///
/// A lock, not an actor: every send looks its client up here, and making one never waits.
public final class APNsSenders: Sendable {
    private let apps: [String: Configuration.App]
    private let settings: Configuration.Delivery
    private let time: any TimeSource
    private let logger: Logger
    private let tokenCache: (any ProviderTokenCache)?
    private struct State {
        var clients: [SenderKey: APNsClient] = [:]
        /// By app.
        var tokens: [String: ProviderToken] = [:]
    }
    private let state = Mutex(State())
    /// A client's app and environment: hashed as they are, with no key string built for every send.
    private struct SenderKey: Hashable {
        var appId: String
        var environment: APNsEnvironment
    }

    /// An app without a usable APNs setup.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// - Parameter tokenCache: where the provider tokens are shared with other relays; nil keeps them in
    ///   this process.
    public init(
        apps: [Configuration.App],
        settings: Configuration.Delivery,
        time: any TimeSource,
        logger: Logger,
        tokenCache: (any ProviderTokenCache)? = nil
    ) {
        self.tokenCache = tokenCache
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.settings = settings
        self.time = time
        self.logger = logger
    }

    /// The client for `appId`'s pushes to `environment`.
    /// - Throws: ``Unavailable`` for an unknown app; `CryptoError` or `APNsConfigurationError` when its
    ///   credentials cannot be loaded.
    public func sender(appId: String, environment: APNsEnvironment) throws -> APNsClient {
        let key = SenderKey(appId: appId, environment: environment)
        return try state.withLock { state in
            if let client = state.clients[key] { return client }
            guard let app = apps[appId] else { throw Unavailable(description: "no app '\(appId)'") }
            let endpoint: APNsClientConfiguration.Endpoint =
                if let mock = app.apns.endpoints[environment] {
                    .custom(baseURL: mock.baseURL, caFile: mock.caFile)
                } else {
                    environment == .production ? .production : .sandbox
                }
            var configuration = APNsClientConfiguration(
                endpoint: endpoint,
                authentication: try authentication(for: app, tokens: &state.tokens)
            )
            configuration.connectTimeout = .milliseconds(settings.connectTimeoutMilliseconds)
            configuration.requestTimeout = .milliseconds(settings.requestTimeoutMilliseconds)
            configuration.maxInFlight = settings.concurrency
            configuration.connections = settings.apnsConnections
            configuration.timeSource = time
            configuration.logger = logger.with(["app.id": appId, "apns.environment": environment.rawValue])
            let client = try APNsClient(configuration: configuration)
            state.clients[key] = client
            return client
        }
    }

    /// The app's certificate, or its provider token (made once, shared by its clients, kept in `tokens`).
    private func authentication(
        for app: Configuration.App,
        tokens: inout [String: ProviderToken]
    ) throws -> APNsClientConfiguration.Authentication {
        guard let credentials = app.apns.credentials else {
            throw Unavailable(description: "app '\(app.id)' has no APNs credentials")
        }
        if let certificate = credentials.certificateFile {
            return .certificate(
                certificatePath: certificate,
                keyPath: credentials.certificateKeyFile,
                password: credentials.certificatePassword
            )
        }
        if let token = tokens[app.id] { return .providerToken(token) }
        let token = try ProviderToken(
            keyPEMOrPath: credentials.keyFile ?? "",
            keyId: credentials.keyId ?? "",
            teamId: credentials.teamId ?? "",
            timeSource: time,
            cache: tokenCache
        )
        tokens[app.id] = token
        return .providerToken(token)
    }

    /// Loads every app's APNs credentials as its first send would: a token-auth key must sign, a client
    /// certificate must open with its password and match its key (``RelayCrypto/ClientCertificate``). A
    /// file that cannot work stops the relay (and `config check`) instead of failing every delivery.
    /// - Throws: ``Configuration/Invalid`` with one line per app whose credentials cannot be used, by path.
    public static func checkCredentials(_ apps: [Configuration.App]) throws(Configuration.Invalid) {
        let problems = apps.enumerated().compactMap { index, app -> String? in
            guard let credentials = app.apns.credentials else { return nil }
            let at = "apps[\(index)].apns.credentials"
            if let certificate = credentials.certificateFile {
                do {
                    try ClientCertificate.check(
                        certificatePath: certificate,
                        keyPath: credentials.certificateKeyFile,
                        password: credentials.certificatePassword
                    )
                    return nil
                } catch {
                    return "\(at).certificateFile: \(error)"
                }
            }
            guard let keyFile = credentials.keyFile else { return nil }
            do {
                _ = try ProviderToken(
                    keyPEMOrPath: keyFile,
                    keyId: credentials.keyId ?? "",
                    teamId: credentials.teamId ?? ""
                )
                return nil
            } catch {
                return "\(at).keyFile: \(error)"
            }
        }
        if !problems.isEmpty { throw Configuration.Invalid(problems) }
    }

    /// The app's apns-topic (`apps[].topic`, its bundle id); nil for an unknown app.
    public func topic(appId: String) -> String? { apps[appId]?.topic }

    /// After 403 ExpiredProviderToken: the app's next request carries a freshly minted token.
    public func renewProviderToken(appId: String) {
        let token = state.withLock { $0.tokens[appId] }
        token?.invalidate()
    }

    /// Closes every client after its transfers finished.
    public func shutdown() async {
        let clients = state.withLock { state in
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for client in clients { await client.shutdown() }
    }
}
