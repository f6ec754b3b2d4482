import Foundation

/// Everything the relay can be told, with documented defaults, nested by concern.
///
/// Layers, later wins: ``Configuration/init()`` defaults, then a JSON file (`--config`), then `PUSH_RELAY_*`
/// environment variables (see ``Configuration/load(file:environment:)``). Keys are given as file paths;
/// ``description`` redacts secrets.
public struct Configuration: Codable, Sendable, Equatable {
    /// The HTTP API.
    public var http = HTTP()
    /// Where state is kept.
    public var storage = Storage()
    /// How deliveries go out.
    public var delivery = Delivery()
    /// Logging.
    public var log = Log()
    /// The apps this relay serves; each has its own API keys, topic, APNs and FCM settings.
    public var apps: [App] = []
    /// On SIGTERM/SIGINT/SIGHUP the relay stops accepting, finishes what is in flight and exits 0 within this
    /// many SECONDS; past them it exits 1, and deliveries still unfinished stay in the outbox for the next
    /// start.
    public var shutdownTimeoutSeconds = 30

    public init() {}

    public struct HTTP: Codable, Sendable, Equatable {
        /// Address to listen on.
        public var host = "127.0.0.1"
        /// TCP port; 0 picks a free one.
        public var port = 8080
        /// Largest request body, in BYTES; more is answered 413.
        public var maxBodyBytes = 65_536
        /// A connection idle this long is closed, in SECONDS.
        public var connectionTimeoutSeconds = 30
        /// Connections open at once, over all clients. At start the relay raises its open-file limit to the
        /// hard limit and serves at most that limit minus a reserve for its other files (see docs/behaviour.md).
        public var maxConnections = 10_000
        /// Connections open at once from one direct peer address (the TCP peer, a proxy's own address when
        /// one is in front); further ones are closed at accept.
        public var maxConnectionsPerAddress = 64
        /// Connections open at once from the direct peers of one address range: an IPv4 address's
        /// ``ipv4PrefixLength`` leading bits (a /24), an IPv6 address's ``ipv6PrefixLength`` (a /64, which one
        /// subscriber usually holds whole); further ones are closed at accept. Peers in ``trustedProxies`` are
        /// capped by neither this nor ``maxConnectionsPerAddress``.
        public var maxConnectionsPerPrefix = 256
        /// Leading bits of an IPv4 address that make its range for ``maxConnectionsPerPrefix``, 1...32.
        public var ipv4PrefixLength = 24
        /// Leading bits of an IPv6 address that make its range for ``maxConnectionsPerPrefix``, 1...128.
        public var ipv6PrefixLength = 64
        /// Least average pace of a request body, in BYTES a second, counted from its headers' end once
        /// ``bodyRateGraceSeconds`` have passed (each that many bytes buy a second more); a slower body's
        /// connection is closed without an answer. A client taking its answers slower, counted from the
        /// first it has not acknowledged, is closed too.
        public var minBodyBytesPerSecond = 1024
        /// SECONDS after a request's headers before ``minBodyBytesPerSecond`` counts.
        public var bodyRateGraceSeconds = 5
        /// A request's line and headers must arrive within this many SECONDS of the connection's start (or of
        /// the end of the previous request on it); bytes arriving slowly do not extend it.
        public var headerTimeoutSeconds = 10
        /// A request's body must arrive within this many SECONDS of its headers' end.
        public var bodyTimeoutSeconds = 30
        /// On a stop signal `/readyz` answers 503 at once, and the listeners go on serving this many SECONDS
        /// before they close: a load balancer that polls `/readyz` stops sending new requests before they
        /// would be refused. 0 closes them at once; less than ``Configuration/shutdownTimeoutSeconds``.
        public var closeDelaySeconds = 0
        /// Proxies whose `X-Forwarded-For` is believed: addresses or CIDR ranges (`"10.0.0.0/8"`, `"::1"`).
        /// When the direct peer is one, the client's address is the right-most address of `X-Forwarded-For`
        /// that is not a trusted proxy.
        public var trustedProxies: [String] = []
        /// HTTPS served by the relay itself; unset serves plain HTTP.
        public var tls = TLS()
        /// A second, plain-HTTP listener for the operator's endpoints (``Admin``); on by default.
        public var admin = Admin()
        /// How many user-credential checks a client may have in flight or failed (``CredentialFailures``).
        public var credentialFailures = CredentialFailures()
        /// Room for a request's line and headers, in BYTES (libmicrohttpd's per-connection memory): longer
        /// headers get 431, a longer request target 414. Within ``maxHeaderBytesRange``.
        public var maxHeaderBytes = 32_768
        /// What `maxHeaderBytes` may be: at least a page, at most 1 MiB (it is kept for every connection).
        public static let maxHeaderBytesRange = 4096...1_048_576
        /// libmicrohttpd's threads for the API listener: each accepts, reads, writes and does the TLS
        /// handshakes of a share of the connections (handlers run as Swift tasks), so a burst of handshakes
        /// takes more than one core and holds up only the connections of the threads it lands on. 1...64.
        public var threads = 2
        public init() {}

        /// The certificate and key the relay serves HTTPS with: PEM files read once at start. Both or neither.
        public struct TLS: Codable, Sendable, Equatable {
            /// The server certificate, followed by any intermediate certificates (PEM).
            public var certificateFile: String?
            /// The certificate's private key, unencrypted (PEM).
            public var keyFile: String?
            public init(certificateFile: String? = nil, keyFile: String? = nil) {
                self.certificateFile = certificateFile
                self.keyFile = keyFile
            }

            /// Whether HTTPS is asked for (either file given).
            public var isEnabled: Bool { certificateFile != nil || keyFile != nil }

            /// Writes unset files as `null`, so the settings appear in `config check` and a file or
            /// `PUSH_RELAY_HTTP_TLS_*` variable may set them.
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(certificateFile, forKey: .certificateFile)
                try container.encode(keyFile, forKey: .keyFile)
            }
        }
    }

    public struct Storage: Codable, Sendable, Equatable {
        /// The SQLite database file; created with its folder when missing.
        public var sqlitePath = ".data/push-relay.sqlite"
        /// How long a writer waits for a lock, in MILLISECONDS; SQLite waits at most
        /// ``requestDeadlineMilliseconds``.
        public var busyTimeoutMilliseconds = 5000
        /// How long after a request's arrival its store calls may still START, in MILLISECONDS (default 5,000):
        /// a call that cannot (every PostgreSQL connection of the relay busy, a frozen or unreachable
        /// database) answers 503 `storage_unavailable` instead of queueing.
        public var requestDeadlineMilliseconds = 5000
        /// PostgreSQL instead of SQLite, when its `url` is set.
        public var postgres = Postgres()
        /// How long a notification is kept once none of its deliveries is pending, in HOURS (default 168, a
        /// week; 1...87,600): then the retention job deletes it with its deliveries and idempotency keys, and
        /// `GET /v1/notifications/{id}` answers 404 as for an unknown id.
        public var retentionHours = 168
        /// The longest ``retentionHours``: ten years.
        public static let maxRetentionHours = 87_600
        public init() {}

        /// The PostgreSQL database the relay keeps its store in instead of the SQLite file.
        public struct Postgres: Codable, Sendable, Equatable {
            /// A libpq connection URI, e.g. `postgresql://relay@db.internal:5432/relay`; nil (the default)
            /// keeps the store in SQLite at ``Storage/sqlitePath``. A password is best given by ``passwordFile``,
            /// `PGPASSWORD` or `~/.pgpass` rather than in the URI; one in the URI must be percent-encoded
            /// (`@` as `%40`, `/` as `%2F`; https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS).
            public var url: String?
            /// A file holding the password for ``url`` (a mounted secret), read once at start; one trailing
            /// newline is ignored. Nil (the default): the password comes from the URI or libpq's own sources.
            public var passwordFile: String?
            /// Connections to the database per relay (default 4; 1...64): store calls run on as many at once,
            /// and a call waits for a free one at most until its request's deadline.
            public var poolSize = 4
            /// The largest ``poolSize``.
            public static let maxPoolSize = 64
            /// How long one statement may take, in SECONDS (default 10; 1...600), measured by the relay, so a
            /// frozen or unreachable server is noticed too: then the statement fails and its connection is
            /// given up. A webhook to a very large room is one statement writing a delivery per device (about
            /// 5 s for 100,000 on a small server): give it room when rooms are that large.
            public var statementTimeoutSeconds = 10
            /// What ``statementTimeoutSeconds`` may be.
            public static let statementTimeoutRange = 1...600
            public init(url: String? = nil, passwordFile: String? = nil) {
                self.url = url
                self.passwordFile = passwordFile
            }

            /// Writes unset settings as `null`, so they appear in `config check` and a file or
            /// `PUSH_RELAY_STORAGE_POSTGRES_URL` / `_PASSWORD_FILE` may set them.
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(url, forKey: .url)
                try container.encode(passwordFile, forKey: .passwordFile)
                try container.encode(poolSize, forKey: .poolSize)
                try container.encode(statementTimeoutSeconds, forKey: .statementTimeoutSeconds)
            }
        }
    }

    public struct Delivery: Codable, Sendable, Equatable {
        /// Requests to the push services (APNs, FCM) in flight at once, over all apps. Each costs about 20 KB of
        /// memory (libcurl's transfer and the relay's job); at 20–50 ms a request, 200 in flight carry
        /// 4,000–10,000 pushes a second.
        public var concurrency = 300
        /// Requests in flight for any one app to one platform's push service (each app and platform is a lane
        /// of its own), so a push service that is slow or unreachable cannot take every slot from the other
        /// apps, nor from the same app's other platforms. More than ``concurrency`` means no limit of its own.
        public var perAppConcurrency = 200
        /// Deliveries taken from the outbox at a time.
        public var batchSize = 1000
        /// A taken delivery not finished within this many SECONDS is taken again (crash recovery).
        public var leaseSeconds = 120
        /// How long a push waits for its service's answer, in MILLISECONDS.
        public var requestTimeoutMilliseconds = 15_000
        /// How long connecting to a push service may take, in MILLISECONDS.
        public var connectTimeoutMilliseconds = 10_000
        /// HTTP/2 connections to APNs per app and environment, each on its own thread, sharing the app's
        /// provider token; requests spread over them, and while one is still proving its token the others
        /// carry the traffic. within ``apnsConnectionsRange``; default 2 (Apple advises several for volume).
        public var apnsConnections = 2
        /// What ``apnsConnections`` may be.
        public static let apnsConnectionsRange = 1...16
        /// Retries after 429, 5xx and transport failures.
        public var retry = RetryPolicy()
        /// How often the outbox is checked for due retries when nothing new arrives, in MILLISECONDS.
        public var pollIntervalMilliseconds = 1000
        /// This relay's name among the relays sharing one store; its leases carry it. Empty picks one: `local`
        /// on SQLite, `<hostname>-<random>` on PostgreSQL (see ``Configuration/resolvedInstanceId(hostName:)``).
        public var instanceId = ""
        public init() {}
    }

    public struct Log: Codable, Sendable, Equatable {
        /// trace, debug, info, notice, warning, error or critical.
        public var level: Logger.Level = .info
        public init() {}
    }

    /// One app: the API keys that select it, its topic, its APNs and FCM settings, and its own options.
    /// In a JSON file only `id`, `topic` and `apiKeySHA256` are required; the rest have the defaults below.
    public struct App: Codable, Sendable, Equatable {
        /// A short id, unique in this relay (letters, digits, `.`, `_`, `-`).
        public var id: String
        /// The identity the app's pushes are sent as (``NotificationContent/sendAs``): for APNs the app's
        /// bundle id, sent as apns-topic.
        public var topic: String
        /// SHA-256 (lowercase hex) of each API key that selects this app; several allow rotation.
        public var apiKeySHA256: [String]
        /// What every API key `push-relay keys new` makes starts with: a key pasted where its hash belongs is
        /// told from the hash, and secret scanners can name the keys a repository or log holds.
        public static let apiKeyPrefix = "prk_"
        /// APNs (iOS): credentials, endpoints, default environment. Default: no credentials, Apple's hosts.
        public var apns: APNs
        /// FCM (Android); nil: no settings, so `push-relay serve` uses an in-process mock FCM.
        public var fcm: FCM?
        /// Web Push (browsers); nil: the app has no web devices.
        public var webPush: WebPush?
        /// apns-expiration is now + this many SECONDS; 0 means deliver once and do not store. Default 86400.
        public var ttlSeconds: Int
        /// When set, webhooks must carry `X-PushRelay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
        /// "t.body">` made with this secret. Redacted in every printout.
        public var webhookSecret: String?
        /// The secrets a webhook's signature may be made with: ``webhookSecret``, then
        /// ``previousWebhookSecrets``; none without ``webhookSecret``.
        public var acceptedWebhookSecrets: [String] { webhookSecret.map { [$0] + previousWebhookSecrets } ?? [] }
        /// Secrets a webhook's signature may also be made with while its senders move to ``webhookSecret``
        /// (a rotation); feedback POSTs are signed with ``webhookSecret`` alone. Redacted in every printout.
        public var previousWebhookSecrets: [String]
        /// Privacy mode: payloads carry no message text ("New message"), still with the Ditto keys. Default off.
        public var privacy: Bool
        /// Each retired token is POSTed here as JSON (signed like webhooks when ``webhookSecret`` is set).
        public var feedbackURL: String?
        /// Whether a room without a setting of its own (`PUT /v1/rooms/{roomId}`) takes joins and leaves from
        /// its users. Default open.
        public var roomMembership: RoomMembership
        /// What one user may do; see ``Limits``.
        public var limits: Limits
        /// How the app's users prove who they are; none: only the app's API key is taken.
        public var userAuth: UserAuth?
        /// The app's Ditto change stream; with it, rooms, members and names come from Ditto.
        public var ditto: Ditto?
        /// Each iOS alert carries `aps.badge` and each Android message `data.dittoChatUnread`: the
        /// recipient's unread total when the push is sent. Default off.
        public var badge: Bool
        /// Wake pushes (``PushMode/wake``) one device takes in a UTC clock hour, within
        /// ``wakeBudgetRange``; beyond them its messages come as alerts. Default 3 (Apple throttles
        /// background pushes to "two or three per hour").
        public var wakeBudgetPerHour: Int
        /// What ``wakeBudgetPerHour`` may be.
        public static let wakeBudgetRange = 1...60
        /// The grace window, in SECONDS within ``pushDelayRange``: a delivery is due this long after its
        /// message's time, and one whose recipient read the room up to that time before then ends
        /// `cancelled` (reason `read`) without being sent. Default 0 (due at once).
        public var pushDelaySeconds: Int
        /// What ``pushDelaySeconds`` may be.
        public static let pushDelayRange = 0...300
        /// With ``badge``: the fewest SECONDS between two badge updates to one device (the pushes that
        /// lower its badge when its user reads elsewhere), within ``badgeUpdateRange``; later changes
        /// coalesce into the next one. Default 10.
        public var badgeUpdateSeconds: Int
        /// What ``badgeUpdateSeconds`` may be.
        public static let badgeUpdateRange = 1...3600

        public init(
            id: String,
            topic: String,
            apiKeySHA256: [String],
            apns: APNs = APNs(),
            fcm: FCM? = nil,
            webPush: WebPush? = nil,
            ttlSeconds: Int = 86_400,
            webhookSecret: String? = nil,
            previousWebhookSecrets: [String] = [],
            privacy: Bool = false,
            feedbackURL: String? = nil,
            roomMembership: RoomMembership = .open,
            limits: Limits = Limits(),
            userAuth: UserAuth? = nil,
            ditto: Ditto? = nil,
            badge: Bool = false,
            wakeBudgetPerHour: Int = 3,
            pushDelaySeconds: Int = 0,
            badgeUpdateSeconds: Int = 10
        ) {
            self.id = id
            self.topic = topic
            self.apiKeySHA256 = apiKeySHA256
            self.apns = apns
            self.fcm = fcm
            self.webPush = webPush
            self.ttlSeconds = ttlSeconds
            self.webhookSecret = webhookSecret
            self.previousWebhookSecrets = previousWebhookSecrets
            self.privacy = privacy
            self.feedbackURL = feedbackURL
            self.roomMembership = roomMembership
            self.limits = limits
            self.userAuth = userAuth
            self.ditto = ditto
            self.badge = badge
            self.wakeBudgetPerHour = wakeBudgetPerHour
            self.pushDelaySeconds = pushDelaySeconds
            self.badgeUpdateSeconds = badgeUpdateSeconds
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, topic, apiKeySHA256, apns, fcm, webPush, ttlSeconds, webhookSecret, previousWebhookSecrets
            case privacy, feedbackURL, roomMembership, limits, userAuth, ditto, badge
            case wakeBudgetPerHour, pushDelaySeconds, badgeUpdateSeconds
        }

        /// Also takes the deprecated flat APNs keys (see ``DeprecatedKeys``).
        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self, DeprecatedKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                id: try c.decode(String.self, forKey: .id),
                topic: try c.decode(String.self, forKey: .topic),
                apiKeySHA256: try c.decode([String].self, forKey: .apiKeySHA256),
                apns: try Self.decodeAPNs(from: decoder),
                fcm: try c.decodeIfPresent(FCM.self, forKey: .fcm),
                webPush: try c.decodeIfPresent(WebPush.self, forKey: .webPush),
                ttlSeconds: try c.decodeIfPresent(Int.self, forKey: .ttlSeconds) ?? 86_400,
                webhookSecret: try c.decodeIfPresent(String.self, forKey: .webhookSecret),
                previousWebhookSecrets: try c.decodeIfPresent([String].self, forKey: .previousWebhookSecrets) ?? [],
                privacy: try c.decodeIfPresent(Bool.self, forKey: .privacy) ?? false,
                feedbackURL: try c.decodeIfPresent(String.self, forKey: .feedbackURL),
                roomMembership: try c.decodeIfPresent(RoomMembership.self, forKey: .roomMembership) ?? .open,
                limits: try c.decodeIfPresent(Limits.self, forKey: .limits) ?? Limits(),
                userAuth: try c.decodeIfPresent(UserAuth.self, forKey: .userAuth),
                ditto: try c.decodeIfPresent(Ditto.self, forKey: .ditto),
                badge: try c.decodeIfPresent(Bool.self, forKey: .badge) ?? false,
                wakeBudgetPerHour: try c.decodeIfPresent(Int.self, forKey: .wakeBudgetPerHour) ?? 3,
                pushDelaySeconds: try c.decodeIfPresent(Int.self, forKey: .pushDelaySeconds) ?? 0,
                badgeUpdateSeconds: try c.decodeIfPresent(Int.self, forKey: .badgeUpdateSeconds) ?? 10
            )
        }
    }

    /// How the relay proves itself to APNs.
    public struct Credentials: Codable, Sendable, Equatable {
        /// Token auth: the .p8 key file from Apple, its Key ID and the Team ID.
        public var keyFile: String?
        public var keyId: String?
        public var teamId: String?
        /// Certificate auth: a PEM or PKCS#12 (.p12) client certificate, its key (PEM) and password.
        public var certificateFile: String?
        public var certificateKeyFile: String?
        public var certificatePassword: String?
        public init(
            keyFile: String? = nil,
            keyId: String? = nil,
            teamId: String? = nil,
            certificateFile: String? = nil,
            certificateKeyFile: String? = nil,
            certificatePassword: String? = nil
        ) {
            self.keyFile = keyFile
            self.keyId = keyId
            self.teamId = teamId
            self.certificateFile = certificateFile
            self.certificateKeyFile = certificateKeyFile
            self.certificatePassword = certificatePassword
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case keyFile, keyId, teamId, certificateFile, certificateKeyFile, certificatePassword
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                keyFile: try c.decodeIfPresent(String.self, forKey: .keyFile),
                keyId: try c.decodeIfPresent(String.self, forKey: .keyId),
                teamId: try c.decodeIfPresent(String.self, forKey: .teamId),
                certificateFile: try c.decodeIfPresent(String.self, forKey: .certificateFile),
                certificateKeyFile: try c.decodeIfPresent(String.self, forKey: .certificateKeyFile),
                certificatePassword: try c.decodeIfPresent(String.self, forKey: .certificatePassword)
            )
        }
    }

    /// A mock APNs or FCM (or any compatible server) instead of Apple's or Google's hosts.
    public struct MockEndpoint: Codable, Sendable, Equatable {
        /// e.g. `https://127.0.0.1:2197`: http or https, no trailing slash.
        public var baseURL: String
        /// PEM CA file that signed the server's certificate.
        public var caFile: String?
        public init(baseURL: String, caFile: String? = nil) {
            self.baseURL = baseURL
            self.caFile = caFile
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case baseURL, caFile }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                baseURL: try c.decode(String.self, forKey: .baseURL),
                caFile: try c.decodeIfPresent(String.self, forKey: .caFile)
            )
        }
    }
}
