import RelayCore

/// An app's user-credential check as its `userAuth` configures it: JWT rules, the Ditto auth webhook, or
/// both.
///
/// With both, the JWT rules decide every token whose signature one of their keys verifies, so an expired,
/// not yet valid, wrong-issuer or wrong-audience JWT of theirs is refused with its own code and never
/// reaches the webhook. Any other token (not a JWT, an algorithm or `kid` they do not have, a signature
/// none of their keys makes: ``JWTAuthenticator/notOurs``) goes to the webhook, whose answer decides; its
/// refusal names the JWT rules' reason too. A JWKS URL that cannot be fetched gives 503 for a JWT without
/// asking the webhook, since the JWT may be one of its keys'.
public struct AppUserAuthenticator: UserAuthenticator {
    public let jwt: JWTAuthenticator?
    public let webhook: DittoWebhookAuthenticator?

    public init(jwt: JWTAuthenticator?, webhook: DittoWebhookAuthenticator?) {
        self.jwt = jwt
        self.webhook = webhook
    }

    /// The check `settings` describe, its key files loaded.
    /// - Parameter keyPath: where `settings` sits in the configuration, for problems (`apps[0].userAuth`).
    /// - Throws: ``RelayCore/Configuration/Invalid`` naming each key file that cannot be used.
    public static func make(
        for settings: Configuration.UserAuth,
        keyPath: String = "userAuth",
        time: any TimeSource = SystemTimeSource(),
        logger: Logger
    ) throws(Configuration.Invalid) -> AppUserAuthenticator {
        AppUserAuthenticator(
            jwt: try settings.jwt.map { (jwt) throws(Configuration.Invalid) in
                try JWTAuthenticator(settings: jwt, keyPath: "\(keyPath).jwt", time: time, logger: logger)
            },
            webhook: settings.dittoAuthWebhook.map {
                DittoWebhookAuthenticator(settings: $0, time: time, logger: logger)
            }
        )
    }

    /// The check of every app that has `userAuth`, by app id: what the relay serves with and what `serve`
    /// and `config check` load at start, so a key file that cannot be used stops them.
    /// - Throws: ``RelayCore/Configuration/Invalid`` naming every key file that cannot be used, by key path.
    public static func make(
        apps: [Configuration.App],
        time: any TimeSource = SystemTimeSource(),
        logger: Logger
    ) throws(Configuration.Invalid) -> [String: any UserAuthenticator] {
        var checks: [String: any UserAuthenticator] = [:]
        var problems: [String] = []
        for (index, app) in apps.enumerated() {
            guard let settings = app.userAuth else { continue }
            do {
                checks[app.id] = try make(
                    for: settings,
                    keyPath: "apps[\(index)].userAuth",
                    time: time,
                    logger: logger.with(["app.id": app.id])
                )
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw Configuration.Invalid(problems) }
        return checks
    }

    /// Without the webhook every token is the JWT rules' to check (or refused at once without them); with
    /// it, a token they cannot check asks it.
    public var checksLocally: Bool { webhook == nil && jwt?.checksLocally != false }

    /// What the webhook's cache holds for `token` (an accepted token never asked the JWT rules' keys for a
    /// signature either: it went to the webhook because they could not check it).
    public func cachedUserId(forBearer token: String) async -> String? {
        await webhook?.cachedUserId(forBearer: token)
    }

    /// - Throws: ``UserAuthError`` as the JWT rules or the webhook decide (see the type's description);
    ///   401 `credential_refused` when neither is configured.
    public func userId(forBearer token: String) async throws(UserAuthError) -> String {
        try await userId(forBearer: token, from: IPNetwork("::/0")!)
    }

    /// - Parameter range: the client's address range, for the webhook's fair share of calls.
    /// - Throws: as ``userId(forBearer:)``.
    public func userId(forBearer token: String, from range: IPNetwork) async throws(UserAuthError) -> String {
        guard let jwt else {
            guard let webhook else { throw .refused("this app takes no user credentials") }
            return try await webhook.userId(forBearer: token, from: range)
        }
        do {
            return try await jwt.userId(forBearer: token)
        } catch {
            guard let webhook, JWTAuthenticator.notOurs.contains(error.code) else { throw error }
            do {
                return try await webhook.userId(forBearer: token, from: range)
            } catch let refusal where refusal.code == UserAuthError.credentialRefused {
                throw .refused("\(refusal.message); as a JWT: \(error.message)")
            }
        }
    }
}
