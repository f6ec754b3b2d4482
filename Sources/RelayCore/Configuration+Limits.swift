extension Configuration {
    /// What one user of an app may do, counted by user id (never by connection or address). Over a limit a
    /// call is answered 429 `rate_limited` with `Retry-After` and changes nothing. Calls made with the app's
    /// API key (its backend) are limited only when ``limitBackend`` is set, by the `senderId` and `userId`
    /// they name.
    public struct Limits: Codable, Sendable, Equatable {
        /// Webhooks one user may send: a token bucket refilled at this many per MINUTE.
        public var webhooksPerMinute: Int
        /// The bucket's size: webhooks one user may send at once after a quiet spell.
        public var webhookBurst: Int
        /// Live devices one user may have registered.
        public var devicesPerUser: Int
        /// Rooms one user may be a member of.
        public var roomsPerUser: Int
        /// Pushes one user's webhooks may cause to any one recipient within a MINUTE.
        public var pushesPerRecipientPerMinute: Int
        /// Writes of every kind one user may make (device registration and deletion, joins, leaves, room
        /// settings, webhooks): a token bucket refilled at this many per MINUTE.
        public var writesPerMinute: Int
        /// The writes bucket's size: writes one user may make at once after a quiet spell.
        public var writeBurst: Int
        /// Reads one user may make of what the store holds for it (devices, settings, unread counts, rooms
        /// and their members, notifications): a token bucket refilled at this many per MINUTE. Each read
        /// runs on the store, the unread counts over every room of the user.
        public var readsPerMinute: Int
        /// The reads bucket's size: reads one user may make at once after a quiet spell.
        public var readBurst: Int
        /// Notifications one user's webhooks may record in a UTC day.
        public var notificationsPerDay: Int
        /// BYTES one user's webhooks may add to the store in a UTC day: each notification's texts and ids
        /// and a fixed size per row, its delivery rows included (RelayStore's `DailyBudget.cost`).
        public var storedBytesPerDay: Int
        /// Whether the backend's calls count too. Default false.
        public var limitBackend: Bool

        public init(
            webhooksPerMinute: Int = 60,
            webhookBurst: Int = 20,
            devicesPerUser: Int = 10,
            roomsPerUser: Int = 1000,
            pushesPerRecipientPerMinute: Int = 30,
            writesPerMinute: Int = 120,
            writeBurst: Int = 60,
            readsPerMinute: Int = 120,
            readBurst: Int = 60,
            notificationsPerDay: Int = 10_000,
            storedBytesPerDay: Int = 128 << 20,
            limitBackend: Bool = false
        ) {
            self.webhooksPerMinute = webhooksPerMinute
            self.webhookBurst = webhookBurst
            self.devicesPerUser = devicesPerUser
            self.roomsPerUser = roomsPerUser
            self.pushesPerRecipientPerMinute = pushesPerRecipientPerMinute
            self.writesPerMinute = writesPerMinute
            self.writeBurst = writeBurst
            self.readsPerMinute = readsPerMinute
            self.readBurst = readBurst
            self.notificationsPerDay = notificationsPerDay
            self.storedBytesPerDay = storedBytesPerDay
            self.limitBackend = limitBackend
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case webhooksPerMinute, webhookBurst, devicesPerUser, roomsPerUser, pushesPerRecipientPerMinute
            case writesPerMinute, writeBurst, readsPerMinute, readBurst, notificationsPerDay, storedBytesPerDay
            case limitBackend
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Limits()
            self.init(
                webhooksPerMinute: try c.decodeIfPresent(Int.self, forKey: .webhooksPerMinute)
                    ?? defaults.webhooksPerMinute,
                webhookBurst: try c.decodeIfPresent(Int.self, forKey: .webhookBurst) ?? defaults.webhookBurst,
                devicesPerUser: try c.decodeIfPresent(Int.self, forKey: .devicesPerUser) ?? defaults.devicesPerUser,
                roomsPerUser: try c.decodeIfPresent(Int.self, forKey: .roomsPerUser) ?? defaults.roomsPerUser,
                pushesPerRecipientPerMinute: try c.decodeIfPresent(Int.self, forKey: .pushesPerRecipientPerMinute)
                    ?? defaults.pushesPerRecipientPerMinute,
                writesPerMinute: try c.decodeIfPresent(Int.self, forKey: .writesPerMinute) ?? defaults.writesPerMinute,
                writeBurst: try c.decodeIfPresent(Int.self, forKey: .writeBurst) ?? defaults.writeBurst,
                readsPerMinute: try c.decodeIfPresent(Int.self, forKey: .readsPerMinute) ?? defaults.readsPerMinute,
                readBurst: try c.decodeIfPresent(Int.self, forKey: .readBurst) ?? defaults.readBurst,
                notificationsPerDay: try c.decodeIfPresent(Int.self, forKey: .notificationsPerDay)
                    ?? defaults.notificationsPerDay,
                storedBytesPerDay: try c.decodeIfPresent(Int.self, forKey: .storedBytesPerDay)
                    ?? defaults.storedBytesPerDay,
                limitBackend: try c.decodeIfPresent(Bool.self, forKey: .limitBackend) ?? defaults.limitBackend
            )
        }

        /// What a token bucket's rate and burst may be: a million a minute is far above any user's need, and
        /// keeps the buckets' arithmetic in micro-tokens (RelayStore's `UserRateLimit`) within 64 bits.
        public static let bucketRange = 1...1_000_000

        /// Every limit out of its range: the buckets' rates and bursts within ``bucketRange``, each as
        /// `<path>.<key>: must be 1...1000000`; the other limits positive.
        func problems(at path: String) -> [String] {
            let buckets: [(String, Int)] = [
                ("webhooksPerMinute", webhooksPerMinute), ("webhookBurst", webhookBurst),
                ("writesPerMinute", writesPerMinute), ("writeBurst", writeBurst),
                ("readsPerMinute", readsPerMinute), ("readBurst", readBurst),
            ]
            let counts: [(String, Int)] = [
                ("devicesPerUser", devicesPerUser), ("roomsPerUser", roomsPerUser),
                ("pushesPerRecipientPerMinute", pushesPerRecipientPerMinute),
                ("notificationsPerDay", notificationsPerDay), ("storedBytesPerDay", storedBytesPerDay),
            ]
            return buckets.filter { !Self.bucketRange.contains($0.1) }.map {
                "\(path).\($0.0): must be \(Self.bucketRange)"
            } + counts.filter { $0.1 <= 0 }.map { "\(path).\($0.0): must be positive" }
        }
    }
}
