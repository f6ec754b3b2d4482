import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import Synchronization

/// One app's ``APNsClient``s, one per environment, made on first use. They share one provider token (Apple:
/// one token per key, shared by every connection); with a ``RelayCore/ProviderTokenCache``, relays sharing a
/// database share it too.
///
/// A lock, not an actor: every send looks its client up here, and making one never waits.
final class APNsAppClients: PushServiceClient {
    private let app: Configuration.App
    private let settings: Configuration.Delivery
    private let time: any TimeSource
    private let logger: Logger
    private let tokenCache: (any ProviderTokenCache)?
    private struct State {
        var clients: [APNsEnvironment: APNsClient] = [:]
        var token: ProviderToken?
    }
    private let state = Mutex(State())

    init(
        app: Configuration.App,
        settings: Configuration.Delivery,
        time: any TimeSource,
        logger: Logger,
        tokenCache: (any ProviderTokenCache)?
    ) {
        self.app = app
        self.settings = settings
        self.time = time
        self.logger = logger
        self.tokenCache = tokenCache
    }

    /// The client for the app's pushes to `environment`.
    /// - Throws: ``APNsSenders/Unavailable`` without APNs credentials; `CryptoError` or
    ///   `APNsConfigurationError` when they cannot be loaded.
    func sender(environment: APNsEnvironment) throws -> APNsClient {
        try state.withLock { state in
            if let client = state.clients[environment] { return client }
            let endpoint: APNsClientConfiguration.Endpoint =
                if let mock = app.apns.endpoints[environment] {
                    .custom(baseURL: mock.baseURL, caFile: mock.caFile)
                } else {
                    environment == .production ? .production : .sandbox
                }
            var configuration = APNsClientConfiguration(
                endpoint: endpoint,
                authentication: try authentication(token: &state.token)
            )
            configuration.connectTimeout = .milliseconds(settings.connectTimeoutMilliseconds)
            configuration.requestTimeout = .milliseconds(settings.requestTimeoutMilliseconds)
            configuration.maxInFlight = settings.concurrency
            configuration.connections = settings.apnsConnections
            configuration.timeSource = time
            configuration.logger = logger.with(["apns.environment": environment.rawValue])
            let client = try APNsClient(configuration: configuration)
            state.clients[environment] = client
            return client
        }
    }

    /// The app's certificate, or its provider token (made once, shared by its clients, kept in `token`).
    private func authentication(token: inout ProviderToken?) throws -> APNsClientConfiguration.Authentication {
        guard let credentials = app.apns.credentials else {
            throw APNsSenders.Unavailable(description: "app '\(app.id)' has no APNs credentials")
        }
        if let certificate = credentials.certificateFile {
            return .certificate(
                certificatePath: certificate,
                keyPath: credentials.certificateKeyFile,
                password: credentials.certificatePassword
            )
        }
        if let token { return .providerToken(token) }
        let made = try ProviderToken(
            keyPEMOrPath: credentials.keyFile ?? "",
            keyId: credentials.keyId ?? "",
            teamId: credentials.teamId ?? "",
            timeSource: time,
            cache: tokenCache
        )
        token = made
        return .providerToken(made)
    }

    /// After 403 ExpiredProviderToken: the next request carries a freshly minted token.
    func renewProviderToken() {
        state.withLock { $0.token }?.invalidate()
    }

    /// Closes every client after its transfers finished.
    func shutdown() async {
        let clients = state.withLock { state in
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for client in clients { await client.shutdown() }
    }
}
