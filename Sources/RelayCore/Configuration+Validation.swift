import Foundation

extension Configuration {
    /// The longest `apps[].ttlSeconds`, in SECONDS: 28 days, the longest FCM keeps a message for an offline
    /// device (FCMCore's `FCMLimits.maxTTLSeconds` is this value).
    public static let maxTTLSeconds = 28 * 24 * 3600
    /// The most `apps[].previousWebhookSecrets`: each is tried on every signed webhook.
    public static let maxPreviousWebhookSecrets = 4

    /// Why `path` cannot hold the SQLite store, nil when it can: an in-memory database (`:memory:`, a `file:`
    /// URI) would lose every accepted message at a stop, and a directory is no file.
    static func sqlitePathProblem(_ path: String) -> String? {
        if path == ":memory:" || path.hasPrefix("file:") {
            return "must be a file's path (an in-memory database or URI would lose what the relay accepted)"
        }
        if FileManager.default.isDirectory(atPath: path) {
            return "\(path) is a directory; name the database file in it"
        }
        return nil
    }

    /// Why `value` is not the SHA-256 (hex) of an API key or ingest secret (`what`), nil when it is one. A
    /// value that starts with ``App/apiKeyPrefix`` is a key `push-relay keys new` made, pasted instead of the
    /// hash printed beside it: it would match no call, and is no longer secret. The problem never repeats it.
    static func sha256Problem(_ value: String, of what: String) -> String? {
        if value.hasPrefix(App.apiKeyPrefix) {
            return "holds a \(what) itself, not its SHA-256: put there the SHA-256 of a new \(what) (`push-relay keys "
                + "new` prints both); this one is no longer secret"
        }
        guard value.utf8.count == 64, value.utf8.allSatisfy(\.isASCIIHexDigit) else {
            return "must be 64 hex characters (SHA-256 of the \(what))"
        }
        return nil
    }

    /// The whole-number settings that only a range bounds, with their key paths, each problem written
    /// `<key>: must be <range>`: a value past its top would overflow a time computation or ask for memory
    /// that is not there (a `delivery.concurrency` of 10^8 is 10^8 requests in flight), so it is refused before the
    /// relay starts. Each top is far above any useful setting.
    var boundedSettings: [(key: String, value: Int, range: ClosedRange<Int>)] {
        let tenMinutes = 600_000, hour = 3_600_000, day = 86_400_000  // MILLISECONDS
        return [
            ("storage.busyTimeoutMilliseconds", storage.busyTimeoutMilliseconds, 1...tenMinutes),
            ("storage.requestDeadlineMilliseconds", storage.requestDeadlineMilliseconds, 1...tenMinutes),
            ("storage.postgres.poolSize", storage.postgres.poolSize, 1...Storage.Postgres.maxPoolSize),
            (
                "storage.postgres.statementTimeoutSeconds", storage.postgres.statementTimeoutSeconds,
                Storage.Postgres.statementTimeoutRange
            ),
            ("storage.retentionHours", storage.retentionHours, 1...Storage.maxRetentionHours),
            ("delivery.concurrency", delivery.concurrency, 1...10_000),
            ("delivery.perAppConcurrency", delivery.perAppConcurrency, 1...10_000),
            ("delivery.batchSize", delivery.batchSize, 1...10_000),
            ("delivery.leaseSeconds", delivery.leaseSeconds, 1...day / 1000),
            ("delivery.requestTimeoutMilliseconds", delivery.requestTimeoutMilliseconds, 1...tenMinutes),
            ("delivery.connectTimeoutMilliseconds", delivery.connectTimeoutMilliseconds, 1...tenMinutes),
            ("delivery.apnsConnections", delivery.apnsConnections, Delivery.apnsConnectionsRange),
            ("delivery.pollIntervalMilliseconds", delivery.pollIntervalMilliseconds, 1...hour),
            ("delivery.retry.maxAttempts", delivery.retry.maxAttempts, 1...1000),
            ("delivery.retry.baseDelayMilliseconds", delivery.retry.baseDelayMilliseconds, 1...day),
            ("delivery.retry.maxDelayMilliseconds", delivery.retry.maxDelayMilliseconds, 1...day),
            ("shutdownTimeoutSeconds", shutdownTimeoutSeconds, 1...hour / 1000),
        ]
    }

    /// What is valid but likely a mistake, one line each, for `config check` to print and `serve` to log:
    /// a lease shorter than about three request timeouts, the longest a claimed push may wait in its lane
    /// behind a push service that does not answer and then be sent, lets it be claimed again while in
    /// flight and sent twice; two apps trusting one JWT key take each other's tokens
    /// (``sharedUserKeyWarnings``); an app's pushes going to in-process mocks beside real credentials or on a
    /// public listener (``developmentMockWarnings``); the development app on PostgreSQL; per-app lanes as wide
    /// as all of them.
    public var warnings: [String] {
        var warnings: [String] = []
        if delivery.leaseSeconds * 1000 < 3 * delivery.requestTimeoutMilliseconds {
            warnings.append(
                "delivery.leaseSeconds (\(delivery.leaseSeconds)) is less than three "
                    + "delivery.requestTimeoutMilliseconds (\(delivery.requestTimeoutMilliseconds)): a push that "
                    + "waits for a slow push service may be taken again before it is answered, and sent twice"
            )
        }
        if apps.count > 1, delivery.perAppConcurrency >= delivery.concurrency {
            warnings.append(
                "delivery.perAppConcurrency (\(delivery.perAppConcurrency)) is not less than delivery.concurrency "
                    + "(\(delivery.concurrency)): one app's slow push service can take every slot from the other apps"
            )
        }
        // Without apps `serve` runs the development app: on a database relays share, a templating slip joins
        // production's store, ready and serving none of its apps (a relay behind a local proxy listens on
        // loopback, so the loopback rule does not catch it).
        if apps.isEmpty, storage.postgres.url != nil {
            warnings.append(
                "apps: none configured, so serve runs the development app, on storage.postgres.url: a database "
                    + "relays share holds no development app's data; configure apps"
            )
        }
        return warnings + sharedUserKeyWarnings + developmentMockWarnings
    }

    /// Checks every rule and reports all problems at once; zero or negative limits are refused, never turned
    /// into hangs.
    /// - Throws: ``Invalid`` with one line per problem, each starting with its key path.
    public func validate() throws(Invalid) {
        var problems: [String] = []
        func require(_ ok: Bool, _ problem: @autoclosure () -> String) { if !ok { problems.append(problem()) } }
        problems += http.problems()
        // Without apps `serve` runs the development app: its key printed, its pushes to in-process mocks. A
        // production relay whose apps were not passed in must not come up green on a public address.
        require(
            !apps.isEmpty || http.host.isEmpty || Self.isLoopback(http.host),
            "apps: none configured, and the development app that serves in their place listens on a loopback"
                + " http.host only, not '\(http.host)': configure apps, or listen on 127.0.0.1"
        )
        require(!storage.sqlitePath.isEmpty, "storage.sqlitePath: must not be empty")
        if storage.postgres.url == nil, let problem = Self.sqlitePathProblem(storage.sqlitePath) {
            problems.append("storage.sqlitePath: \(problem)")
        }
        for (key, value, range) in boundedSettings where !range.contains(value) {
            problems.append("\(key): must be \(range)")
        }
        require(
            storage.postgres.url.map { !$0.isBlank } ?? true,
            "storage.postgres.url: must not be empty (leave it null for SQLite)"
        )
        require(
            storage.postgres.passwordFile == nil || storage.postgres.url != nil,
            "storage.postgres.passwordFile: needs storage.postgres.url"
        )
        require(
            delivery.instanceId.isEmpty || Self.isShortId(delivery.instanceId),
            "delivery.instanceId: must be \(Self.shortIdRule) (or empty to pick one)"
        )
        require(
            delivery.retry.maxDelayMilliseconds >= delivery.retry.baseDelayMilliseconds,
            "delivery.retry.maxDelayMilliseconds: must be at least baseDelayMilliseconds"
        )
        require(
            (0..<max(shutdownTimeoutSeconds, 1)).contains(http.closeDelaySeconds),
            "http.closeDelaySeconds: must be 0 or more and less than shutdownTimeoutSeconds (\(shutdownTimeoutSeconds))"
        )
        var seen = Set<String>()
        var keyOwners: [String: String] = [:]  // API key hash (lowercase hex) -> the app it selects
        for (index, app) in apps.enumerated() {
            let at = "apps[\(index)]"
            require(Self.isShortId(app.id), "\(at).id: must be \(Self.shortIdRule)")
            require(seen.insert(app.id).inserted, "\(at).id: '\(app.id)' is used twice")
            // The topic goes in a header of every push (apns-topic): a bundle id and its suffix.
            require(
                (1...255).contains(app.topic.utf8.count) && app.topic.isVisibleASCII,
                "\(at).topic: must be 1 to 255 printable ASCII characters without spaces (the app's bundle id)"
            )
            require(!app.apiKeySHA256.isEmpty, "\(at).apiKeySHA256: needs at least one key hash")
            for (k, hash) in app.apiKeySHA256.enumerated() {
                if let problem = Self.sha256Problem(hash, of: "key") {
                    problems.append("\(at).apiKeySHA256[\(k)]: \(problem)")
                    continue
                }
                // A key selects one app: the same key for two would reach only the first.
                if let owner = keyOwners[hash.lowercased()], owner != app.id {
                    problems.append(
                        "\(at).apiKeySHA256[\(k)]: the same key as app '\(owner)'; each key selects one app"
                    )
                } else {
                    keyOwners[hash.lowercased()] = app.id
                }
            }
            require(
                (0...Self.maxTTLSeconds).contains(app.ttlSeconds),
                "\(at).ttlSeconds: must be 0...\(Self.maxTTLSeconds) (28 days, the longest FCM keeps a message)"
            )
            require(
                Configuration.App.wakeBudgetRange.contains(app.wakeBudgetPerHour),
                "\(at).wakeBudgetPerHour: must be \(Configuration.App.wakeBudgetRange) (wake pushes a device "
                    + "takes in an hour)"
            )
            require(
                Configuration.App.pushDelayRange.contains(app.pushDelaySeconds),
                "\(at).pushDelaySeconds: must be \(Configuration.App.pushDelayRange) (seconds a push waits for "
                    + "a read elsewhere)"
            )
            require(
                Configuration.App.badgeUpdateRange.contains(app.badgeUpdateSeconds),
                "\(at).badgeUpdateSeconds: must be \(Configuration.App.badgeUpdateRange) (seconds between two "
                    + "badge updates to one device)"
            )
            problems += app.limits.problems(at: "\(at).limits")
            problems += app.apns.problems(at: "\(at).apns")
            if let fcm = app.fcm {
                problems += fcm.problems(at: "\(at).fcm", apnsCredentials: app.apns.credentials != nil)
            }
            if let webPush = app.webPush { problems += webPush.problems(at: "\(at).webPush") }
            if let userAuth = app.userAuth { problems += userAuth.problems(at: "\(at).userAuth") }
            if let ditto = app.ditto { problems += ditto.problems(at: "\(at).ditto") }
            if let secret = app.webhookSecret {
                require(secret.utf8.count >= 16, "\(at).webhookSecret: must be at least 16 bytes")
            }
            require(
                app.previousWebhookSecrets.isEmpty || app.webhookSecret != nil,
                "\(at).previousWebhookSecrets: takes effect only with webhookSecret, the one senders move to"
            )
            require(
                app.previousWebhookSecrets.count <= Self.maxPreviousWebhookSecrets,
                "\(at).previousWebhookSecrets: at most \(Self.maxPreviousWebhookSecrets) (each is tried on every webhook)"
            )
            for (index, secret) in app.previousWebhookSecrets.enumerated() where secret.utf8.count < 16 {
                problems.append("\(at).previousWebhookSecrets[\(index)]: must be at least 16 bytes")
            }
            if let url = app.feedbackURL {
                require(
                    URL(string: url).map { ["http", "https"].contains($0.scheme ?? "") && $0.host != nil } ?? false,
                    "\(at).feedbackURL: must be an http or https URL"
                )
            }
        }
        problems += Self.ingestSecretProblems(apps, apiKeyOwners: keyOwners)
        problems += Self.kafkaGroupProblems(apps)
        if !problems.isEmpty { throw Invalid(problems) }
    }

    /// Each app's Kafka consumer is its own group: two apps in one group would split the topics' partitions
    /// between them, each applying the other's events as its own.
    private static func kafkaGroupProblems(_ apps: [App]) -> [String] {
        var owners: [String: String] = [:]  // group id -> its app
        var problems: [String] = []
        for (index, app) in apps.enumerated() {
            guard let kafka = app.ditto?.kafka else { continue }
            let group = kafka.group(appId: app.id)
            if let owner = owners[group] {
                problems.append("apps[\(index)].ditto.kafka.groupId: '\(group)' is app '\(owner)''s group too")
            } else {
                owners[group] = app.id
            }
        }
        return problems
    }

    /// A Ditto ingest secret selects one app, as an ingest secret only: one that is also an API key (any
    /// app's) would let that key post the app's events without the webhook signature an API key needs, or
    /// post another app's; one that two apps hold would reach only the first.
    private static func ingestSecretProblems(_ apps: [App], apiKeyOwners: [String: String]) -> [String] {
        var problems: [String] = []
        var secretOwners: [String: String] = [:]  // ingest secret hash (lowercase hex) -> its app
        for (index, app) in apps.enumerated() {
            for (k, given) in (app.ditto?.ingestSecretSHA256 ?? []).enumerated() {
                let at = "apps[\(index)].ditto.ingestSecretSHA256[\(k)]"
                let hash = given.lowercased()
                if let owner = apiKeyOwners[hash] {
                    problems.append("\(at): the same secret as an API key of app '\(owner)'; keep them apart")
                } else if let owner = secretOwners[hash], owner != app.id {
                    problems.append("\(at): the same secret as app '\(owner)'; each secret selects one app")
                } else {
                    secretOwners[hash] = app.id
                }
            }
        }
        return problems
    }
}

extension Configuration.Credentials {
    /// Token auth when ``keyFile`` is set, certificate auth when ``certificateFile`` is; never both.
    func problems(at path: String) -> [String] {
        var problems: [String] = []
        let unreadable = { (key: String, file: String) in
            FileManager.default.readProblem(atPath: file).map { problems.append("\(path).\(key): \($0)") }
        }
        switch (keyFile, certificateFile) {
        case (let key?, nil):
            unreadable("keyFile", key)
            if (keyId ?? "").isEmpty { problems.append("\(path).keyId: required with keyFile") }
            if (teamId ?? "").isEmpty { problems.append("\(path).teamId: required with keyFile") }
        case (nil, let certificate?):
            unreadable("certificateFile", certificate)
            if let key = certificateKeyFile { unreadable("certificateKeyFile", key) }
        case (nil, nil): problems.append("\(path): needs keyFile (token auth) or certificateFile")
        case (_?, _?): problems.append("\(path): give keyFile or certificateFile, not both")
        }
        return problems
    }
}

extension Configuration.UserAuth {
    /// JWT rules with at least one key source, a webhook with an https URL; files must be readable (their
    /// keys are loaded by RelayAuth at start, which names what does not parse).
    func problems(at path: String) -> [String] {
        var problems: [String] = []
        func require(_ ok: Bool, _ problem: @autoclosure () -> String) { if !ok { problems.append(problem()) } }
        require(jwt != nil || dittoAuthWebhook != nil, "\(path): needs jwt, dittoAuthWebhook or both")
        if let jwt {
            let at = "\(path).jwt"
            require(
                !jwt.publicKeyFiles.isEmpty || jwt.jwksFile != nil || jwt.jwksURL != nil,
                "\(at): needs publicKeyFiles, jwksFile or jwksURL"
            )
            for (index, file) in jwt.publicKeyFiles.enumerated() {
                if let problem = FileManager.default.readProblem(atPath: file) {
                    problems.append("\(at).publicKeyFiles[\(index)]: \(problem)")
                }
            }
            if let file = jwt.jwksFile, let problem = FileManager.default.readProblem(atPath: file) {
                problems.append("\(at).jwksFile: \(problem)")
            }
            if let url = jwt.jwksURL, let problem = Self.urlProblem(url) {
                problems.append("\(at).jwksURL: \(problem)")
            }
            require(jwt.issuer.map { !$0.isBlank } ?? true, "\(at).issuer: must not be blank")
            require(jwt.audience.map { !$0.isBlank } ?? true, "\(at).audience: must not be blank")
            require((0...3600).contains(jwt.leewaySeconds), "\(at).leewaySeconds: must be 0...3600")
            require(!jwt.userIdClaim.isBlank, "\(at).userIdClaim: must not be blank")
            require(jwt.algorithms.map { !$0.isEmpty } ?? true, "\(at).algorithms: must not be empty")
        }
        if let webhook = dittoAuthWebhook {
            let at = "\(path).dittoAuthWebhook"
            if let problem = Self.urlProblem(webhook.url) { problems.append("\(at).url: \(problem)") }
            require(!webhook.provider.isBlank, "\(at).provider: must not be blank")
            require(webhook.maxCacheSeconds > 0, "\(at).maxCacheSeconds: must be positive")
            require(webhook.refusalCacheSeconds > 0, "\(at).refusalCacheSeconds: must be positive")
            require(
                (1...60_000).contains(webhook.timeoutMilliseconds),
                "\(at).timeoutMilliseconds: must be 1...60000"
            )
        }
        return problems
    }

    /// Why `text` is not a URL the relay calls with credentials (user credentials, an FCM token endpoint):
    /// https with a host and no user:password, or http to a loopback host (a sidecar, tests); nil when it is
    /// one.
    static func urlProblem(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else { return "must be an absolute https URL" }
        guard url.user == nil, url.password == nil else { return "must not hold user:password" }
        guard scheme == "https" || scheme == "http" && Configuration.isLoopback(host) else {
            return "must be https (http only to a loopback host)"
        }
        return nil
    }
}

extension Configuration {
    /// Whether `host` (a URL's host, IPv6 in brackets or not) is `localhost`, 127.0.0.0/8 or ::1, in any
    /// spelling of the address (`::ffff:127.0.0.1` is 127.0.0.1).
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        // A dotted quad the resolver reads as numbers too: it reads a part with a leading 0 as octal, and one
        // with an 8 or 9 after that 0 (`127.0.0.08`) as no number, so the text would be looked up as a name.
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        let numeric = { (part: Substring) in
            UInt8(part) != nil && (!part.hasPrefix("0") || part.allSatisfy { ("0"..."7").contains($0) })
        }
        if octets.count == 4 && octets[0] == "127" && octets.allSatisfy(numeric) { return true }
        guard let address = IPAddress(bare) else { return false }
        return address.isIPv4 ? address.bytes[0] == 127 : address.bytes == Array(repeating: 0, count: 15) + [1]
    }
}
