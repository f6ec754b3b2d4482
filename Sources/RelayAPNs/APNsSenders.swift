import Foundation
import RelayCore
import RelayCrypto
import RelayCurl
import Synchronization

/// The APNs clients of every app, in the registry every push service's transport keeps (``RelayCurl/AppClients``):
/// per app an ``APNsAppClients`` made on first use, so one app's APNs trouble (a dead connection, a bad key)
/// never holds up another's deliveries.
public final class APNsSenders: Sendable {
    private let clients: AppClients<Configuration.App, APNsAppClients>
    private let topics: [String: String]

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
        let apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        topics = apps.mapValues(\.topic)
        clients = AppClients(apps, logger: logger) { app, logger in
            APNsAppClients(app: app, settings: settings, time: time, logger: logger, tokenCache: tokenCache)
        }
    }

    /// The client for `appId`'s pushes to `environment`.
    /// - Throws: ``Unavailable`` for an unknown app or one without APNs credentials; `CryptoError` or
    ///   `APNsConfigurationError` when its credentials cannot be loaded.
    public func sender(appId: String, environment: APNsEnvironment) throws -> APNsClient {
        guard let app = try clients.client(appId: appId) else { throw Unavailable(description: "no app '\(appId)'") }
        return try app.sender(environment: environment)
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
    public func topic(appId: String) -> String? { topics[appId] }

    /// After 403 ExpiredProviderToken: the app's next request carries a freshly minted token.
    public func renewProviderToken(appId: String) {
        (try? clients.client(appId: appId))?.renewProviderToken()
    }

    /// Closes every client after its transfers finished.
    public func shutdown() async { await clients.shutdown() }
}
