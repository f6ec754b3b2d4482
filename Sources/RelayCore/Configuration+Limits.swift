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
        /// Whether the backend's calls count too. Default false.
        public var limitBackend: Bool

        public init(
            webhooksPerMinute: Int = 60,
            webhookBurst: Int = 20,
            devicesPerUser: Int = 10,
            roomsPerUser: Int = 1000,
            pushesPerRecipientPerMinute: Int = 30,
            limitBackend: Bool = false
        ) {
            self.webhooksPerMinute = webhooksPerMinute
            self.webhookBurst = webhookBurst
            self.devicesPerUser = devicesPerUser
            self.roomsPerUser = roomsPerUser
            self.pushesPerRecipientPerMinute = pushesPerRecipientPerMinute
            self.limitBackend = limitBackend
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case webhooksPerMinute, webhookBurst, devicesPerUser, roomsPerUser, pushesPerRecipientPerMinute
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
                limitBackend: try c.decodeIfPresent(Bool.self, forKey: .limitBackend) ?? defaults.limitBackend
            )
        }

        /// Every limit that is not positive, each as `<path>.<key>: must be positive`.
        func problems(at path: String) -> [String] {
            let values: [(String, Int)] = [
                ("webhooksPerMinute", webhooksPerMinute), ("webhookBurst", webhookBurst),
                ("devicesPerUser", devicesPerUser), ("roomsPerUser", roomsPerUser),
                ("pushesPerRecipientPerMinute", pushesPerRecipientPerMinute),
            ]
            return values.filter { $0.1 <= 0 }.map { "\(path).\($0.0): must be positive" }
        }
    }
}
