import Foundation

extension Configuration {
    /// An app's Ditto change stream (`apps[].ditto`): where its events come from and how they are read. An
    /// app with these settings takes its rooms, members and names from Ditto.
    public struct Ditto: Codable, Sendable, Equatable {
        /// A Kafka data bridge (Ditto's CDC) to consume; none: events come only through `POST /v1/ditto/events`.
        public var kafka: Kafka?
        /// SHA-256 (lowercase hex) of each secret a bridge may present as `Authorization: Bearer` on
        /// `POST /v1/ditto/events`, besides the app's API keys; several allow rotation.
        public var ingestSecretSHA256: [String]
        /// The app's collection names (the SDK's defaults).
        public var collections: DittoCollections
        /// A message older than this when it arrives pushes nothing (a bridge's first sync, a backfill).
        public var maxMessageAgeSeconds: Int
        /// The largest `POST /v1/ditto/events` body; none: `http.maxBodyBytes`.
        public var maxBodyBytes: Int?
        /// Ditto's HTTP API, for re-reading the mirrored collections after `requeryRequired`.
        public var httpAPI: HTTPAPI?
        /// How long a removed document's tombstone is kept, in HOURS: an older upsert replayed within it
        /// cannot bring the document back. The default is Kafka's default retention (`log.retention.hours`).
        public var tombstoneRetentionHours: Int

        public init(
            kafka: Kafka? = nil,
            ingestSecretSHA256: [String] = [],
            collections: DittoCollections = DittoCollections(),
            maxMessageAgeSeconds: Int = DittoMessageRule.defaultMaxMessageAgeSeconds,
            maxBodyBytes: Int? = nil,
            httpAPI: HTTPAPI? = nil,
            tombstoneRetentionHours: Int = Self.defaultTombstoneRetentionHours
        ) {
            self.kafka = kafka
            self.ingestSecretSHA256 = ingestSecretSHA256
            self.collections = collections
            self.maxMessageAgeSeconds = maxMessageAgeSeconds
            self.maxBodyBytes = maxBodyBytes
            self.httpAPI = httpAPI
            self.tombstoneRetentionHours = tombstoneRetentionHours
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case kafka, ingestSecretSHA256, collections, maxMessageAgeSeconds, maxBodyBytes, httpAPI
            case tombstoneRetentionHours
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                kafka: try c.decodeIfPresent(Kafka.self, forKey: .kafka),
                ingestSecretSHA256: try c.decodeIfPresent([String].self, forKey: .ingestSecretSHA256) ?? [],
                collections: try c.decodeIfPresent(DittoCollections.self, forKey: .collections) ?? DittoCollections(),
                maxMessageAgeSeconds: try c.decodeIfPresent(Int.self, forKey: .maxMessageAgeSeconds)
                    ?? DittoMessageRule.defaultMaxMessageAgeSeconds,
                maxBodyBytes: try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes),
                httpAPI: try c.decodeIfPresent(HTTPAPI.self, forKey: .httpAPI),
                tombstoneRetentionHours: try c.decodeIfPresent(Int.self, forKey: .tombstoneRetentionHours)
                    ?? Self.defaultTombstoneRetentionHours
            )
        }

        /// The rule these settings make: the collections and the age limit.
        public var rule: DittoMessageRule {
            DittoMessageRule(collections: collections, maxMessageAgeSeconds: maxMessageAgeSeconds)
        }

        /// The most events one `POST /v1/ditto/events` takes.
        public static let maxEventsPerRequest = DittoEvent.maximumPerRequest
        /// The largest body `maxBodyBytes` may allow: 1,000 events of up to 64 KiB.
        public static let maxBodyBytesLimit = 64 << 20
        /// `tombstoneRetentionHours` when unset: 7 days, Kafka's default `log.retention.hours`.
        public static let defaultTombstoneRetentionHours = 168
        /// The most `tombstoneRetentionHours` allows: 10 years.
        public static let maxTombstoneRetentionHours = 87_600

        /// Every problem, each starting with `path` (`apps[0].ditto`).
        func problems(at path: String) -> [String] {
            var problems: [String] = []
            for (index, hash) in ingestSecretSHA256.enumerated() {
                if let problem = Configuration.sha256Problem(hash, of: "secret") {
                    problems.append("\(path).ingestSecretSHA256[\(index)]: \(problem)")
                }
            }
            if !(1...86_400).contains(maxMessageAgeSeconds) {
                problems.append("\(path).maxMessageAgeSeconds: must be 1...86400")
            }
            if !(1...Self.maxTombstoneRetentionHours).contains(tombstoneRetentionHours) {
                problems.append("\(path).tombstoneRetentionHours: must be 1...\(Self.maxTombstoneRetentionHours)")
            }
            if let maxBodyBytes, !(1...Self.maxBodyBytesLimit).contains(maxBodyBytes) {
                problems.append("\(path).maxBodyBytes: must be 1...\(Self.maxBodyBytesLimit)")
            }
            problems += collections.problems(at: "\(path).collections")
            problems += kafka?.problems(at: "\(path).kafka") ?? []
            problems += httpAPI?.problems(at: "\(path).httpAPI") ?? []
            return problems
        }
    }
}

extension Configuration.Ditto {
    /// A Kafka consumer of Ditto's CDC topics. Relays on one database form one consumer group.
    public struct Kafka: Codable, Sendable, Equatable {
        /// `host:port[,host:port…]`.
        public var bootstrapServers: String
        /// The topics the bridge writes the app's collections to.
        public var topics: [String]
        /// The consumer group; none: `push-relay-<app id>`.
        public var groupId: String?
        /// The CA (PEM) that signed the brokers' certificates; with it or a client certificate the connection
        /// is TLS.
        public var caFile: String?
        /// A client certificate and key as PEM files.
        public var certificateFile: String?
        public var keyFile: String?
        /// A client certificate and key as one PKCS#12 file (Ditto's download), and its password.
        public var p12File: String?
        public var p12Password: String?
        /// How long the group waits for a silent member before its partitions move (librdkafka
        /// `session.timeout.ms`).
        public var sessionTimeoutMilliseconds: Int

        public init(
            bootstrapServers: String,
            topics: [String],
            groupId: String? = nil,
            caFile: String? = nil,
            certificateFile: String? = nil,
            keyFile: String? = nil,
            p12File: String? = nil,
            p12Password: String? = nil,
            sessionTimeoutMilliseconds: Int = 10_000
        ) {
            self.bootstrapServers = bootstrapServers
            self.topics = topics
            self.groupId = groupId
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.p12File = p12File
            self.p12Password = p12Password
            self.sessionTimeoutMilliseconds = sessionTimeoutMilliseconds
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case bootstrapServers, topics, groupId, caFile, certificateFile, keyFile, p12File, p12Password
            case sessionTimeoutMilliseconds
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                bootstrapServers: try c.decode(String.self, forKey: .bootstrapServers),
                topics: try c.decode([String].self, forKey: .topics),
                groupId: try c.decodeIfPresent(String.self, forKey: .groupId),
                caFile: try c.decodeIfPresent(String.self, forKey: .caFile),
                certificateFile: try c.decodeIfPresent(String.self, forKey: .certificateFile),
                keyFile: try c.decodeIfPresent(String.self, forKey: .keyFile),
                p12File: try c.decodeIfPresent(String.self, forKey: .p12File),
                p12Password: try c.decodeIfPresent(String.self, forKey: .p12Password),
                sessionTimeoutMilliseconds: try c.decodeIfPresent(Int.self, forKey: .sessionTimeoutMilliseconds)
                    ?? 10_000
            )
        }

        /// The consumer group of `appId`'s relays.
        public func group(appId: String) -> String { groupId ?? "push-relay-\(appId)" }

        /// Whether the connection is TLS (a CA or a client certificate is given).
        public var usesTLS: Bool { caFile != nil || certificateFile != nil || p12File != nil }

        /// The first broker of `list` (comma-separated, as librdkafka's `bootstrap.servers` takes them:
        /// `[protocol://]host[:port]`, an IPv6 address in brackets) that names none: empty, a protocol of other
        /// than letters and `_` (`SASL_SSL`), a host of other characters than a name's or an address's (letters, digits, `.`, `-`, `_`;
        /// hexadecimal digits, `:` and `.` in brackets), or a port that is not 1...65535. Nil when every one
        /// names one.
        static func badBroker(in list: String) -> String? {
            for entry in list.split(separator: ",", omittingEmptySubsequences: false) {
                let broker = entry.trimmingCharacters(in: .whitespaces)
                if !namesBroker(broker) { return broker }
            }
            return nil
        }

        private static func namesBroker(_ broker: String) -> Bool {
            var rest = Substring(broker)
            if let scheme = rest.range(of: "://") {
                let name = rest[..<scheme.lowerBound]
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else { return false }
                rest = rest[scheme.upperBound...]
            }
            var port: Substring = ""
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return false }
                let address = rest[rest.index(after: rest.startIndex)..<close]
                guard !address.isEmpty, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                    return false
                }
                port = rest[rest.index(after: close)...]
            } else {
                let colon = rest.firstIndex(of: ":") ?? rest.endIndex
                let host = rest[..<colon]
                let name = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
                guard !host.isEmpty, name else { return false }
                port = rest[colon...]
            }
            guard let colon = port.first else { return true }
            let digits = port.dropFirst()
            guard colon == ":", (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return false
            }
            return (1...65_535).contains(Int(digits) ?? 0)
        }

        /// Structure problems; whether the files open and the certificate loads is `push-relay config check`'s
        /// (it builds a librdkafka client with them).
        func problems(at path: String) -> [String] {
            var problems: [String] = []
            if bootstrapServers.isBlank {
                problems.append("\(path).bootstrapServers: must not be empty")
            } else if let bad = Self.badBroker(in: bootstrapServers) {
                problems.append(
                    "\(path).bootstrapServers: '\(bad)' is not host:port (brokers are separated by commas; a port is 1...65535)"
                )
            }
            if topics.isEmpty { problems.append("\(path).topics: name at least one topic") }
            if let groupId, groupId.isBlank {
                problems.append("\(path).groupId: must not be empty (leave it out for push-relay-<app id>)")
            }
            for (index, topic) in topics.enumerated() {
                // Kafka refuses "." and ".." as topic names.
                if topic.isEmpty || topic.utf8.count > 249 || !topic.isIdentifierText || topic == "." || topic == ".." {
                    problems.append(
                        "\(path).topics[\(index)]: a topic name is 1 to 249 letters, digits, '.', '_', '-' (not . or ..)"
                    )
                } else if topics[..<index].contains(topic) {
                    problems.append("\(path).topics[\(index)]: '\(topic)' is named twice")
                }
            }
            if (certificateFile == nil) != (keyFile == nil) {
                problems.append("\(path).certificateFile and keyFile: give both or neither")
            }
            if p12File != nil && certificateFile != nil {
                problems.append("\(path).p12File: give a .p12 or PEM files, not both")
            }
            if p12Password != nil && p12File == nil { problems.append("\(path).p12Password: only with p12File") }
            // librdkafka reads no keystore without its password.
            if p12File != nil && p12Password?.isEmpty != false {
                problems.append("\(path).p12Password: required with p12File")
            }
            // Below a broker's default `group.min.session.timeout.ms` (6000) the member is never let join.
            if !(6_000...300_000).contains(sessionTimeoutMilliseconds) {
                problems.append("\(path).sessionTimeoutMilliseconds: must be 6000...300000")
            }
            return problems
        }
    }

    /// Ditto's HTTP API (`POST <url>/api/v4/store/execute`), for re-reading after `requeryRequired`.
    public struct HTTPAPI: Codable, Sendable, Equatable {
        /// The app's HTTP API base URL (https).
        public var url: String
        /// The API key (sent as a bearer token; redacted in every printout).
        public var apiKey: String

        public init(url: String, apiKey: String) {
            self.url = url
            self.apiKey = apiKey
        }

        func problems(at path: String) -> [String] {
            var problems: [String] = []
            if let problem = Configuration.UserAuth.urlProblem(url) { problems.append("\(path).url: \(problem)") }
            if apiKey.isBlank { problems.append("\(path).apiKey: must not be empty") }
            return problems
        }
    }
}
