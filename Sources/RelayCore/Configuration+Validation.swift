import Foundation

extension Configuration {
    /// Checks every rule and reports all problems at once; zero or negative limits are refused, never turned
    /// into hangs.
    /// - Throws: ``Invalid`` with one line per problem, each starting with its key path.
    public func validate() throws(Invalid) {
        var problems: [String] = []
        func require(_ ok: Bool, _ problem: @autoclosure () -> String) { if !ok { problems.append(problem()) } }
        problems += http.problems()
        require(!storage.sqlitePath.isEmpty, "storage.sqlitePath: must not be empty")
        require(storage.busyTimeoutMilliseconds > 0, "storage.busyTimeoutMilliseconds: must be positive")
        require(delivery.concurrency > 0, "delivery.concurrency: must be positive")
        require(delivery.perAppConcurrency > 0, "delivery.perAppConcurrency: must be positive")
        require(delivery.batchSize > 0, "delivery.batchSize: must be positive")
        require(delivery.leaseSeconds > 0, "delivery.leaseSeconds: must be positive")
        require(delivery.requestTimeoutMilliseconds > 0, "delivery.requestTimeoutMilliseconds: must be positive")
        require(delivery.connectTimeoutMilliseconds > 0, "delivery.connectTimeoutMilliseconds: must be positive")
        require(delivery.pollIntervalMilliseconds > 0, "delivery.pollIntervalMilliseconds: must be positive")
        require(delivery.retry.maxAttempts > 0, "delivery.retry.maxAttempts: must be positive")
        require(delivery.retry.baseDelayMilliseconds > 0, "delivery.retry.baseDelayMilliseconds: must be positive")
        require(
            delivery.retry.maxDelayMilliseconds >= delivery.retry.baseDelayMilliseconds,
            "delivery.retry.maxDelayMilliseconds: must be at least baseDelayMilliseconds"
        )
        require(shutdownTimeoutSeconds > 0, "shutdownTimeoutSeconds: must be positive")
        var seen = Set<String>()
        var keyOwners: [String: String] = [:]  // API key hash (lowercase hex) -> the app it selects
        for (index, app) in apps.enumerated() {
            let at = "apps[\(index)]"
            require(
                !app.id.isEmpty && app.id.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber || "._-".contains($0) },
                "\(at).id: must be letters, digits, '.', '_' or '-'"
            )
            require(seen.insert(app.id).inserted, "\(at).id: '\(app.id)' is used twice")
            require(!app.topic.isEmpty, "\(at).topic: must not be empty")
            require(!app.apiKeySHA256.isEmpty, "\(at).apiKeySHA256: needs at least one key hash")
            for (k, hash) in app.apiKeySHA256.enumerated() {
                require(
                    hash.utf8.count == 64 && hash.allSatisfy(\.isHexDigit),
                    "\(at).apiKeySHA256[\(k)]: must be 64 hex characters (SHA-256 of the key)"
                )
                // A key selects one app: the same key for two would reach only the first.
                if let owner = keyOwners[hash.lowercased()], owner != app.id {
                    problems.append(
                        "\(at).apiKeySHA256[\(k)]: the same key as app '\(owner)'; each key selects one app"
                    )
                } else {
                    keyOwners[hash.lowercased()] = app.id
                }
            }
            require(app.ttlSeconds >= 0, "\(at).ttlSeconds: must not be negative")
            problems += app.limits.problems(at: "\(at).limits")
            if let credentials = app.credentials { problems += credentials.problems(at: "\(at).credentials") }
            if let secret = app.webhookSecret {
                require(secret.utf8.count >= 16, "\(at).webhookSecret: must be at least 16 bytes")
            }
            if let url = app.feedbackURL {
                require(
                    URL(string: url).map { ["http", "https"].contains($0.scheme ?? "") && $0.host != nil } ?? false,
                    "\(at).feedbackURL: must be an http or https URL"
                )
            }
        }
        if !problems.isEmpty { throw Invalid(problems) }
    }
}

extension Configuration.Credentials {
    /// Token auth when ``keyFile`` is set, certificate auth when ``certificateFile`` is; never both.
    func problems(at path: String) -> [String] {
        var problems: [String] = []
        let readable = { (file: String) in FileManager.default.isReadableFile(atPath: file) }
        switch (keyFile, certificateFile) {
        case (let key?, nil):
            if !readable(key) { problems.append("\(path).keyFile: cannot read \(key)") }
            if (keyId ?? "").isEmpty { problems.append("\(path).keyId: required with keyFile") }
            if (teamId ?? "").isEmpty { problems.append("\(path).teamId: required with keyFile") }
        case (nil, let certificate?):
            if !readable(certificate) { problems.append("\(path).certificateFile: cannot read \(certificate)") }
            if let key = certificateKeyFile, !readable(key) {
                problems.append("\(path).certificateKeyFile: cannot read \(key)")
            }
        case (nil, nil): problems.append("\(path): needs keyFile (token auth) or certificateFile")
        case (_?, _?): problems.append("\(path): give keyFile or certificateFile, not both")
        }
        return problems
    }
}
