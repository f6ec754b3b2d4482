/// A message the client refuses to send because FCM would refuse it (400 INVALID_ARGUMENT): nothing was
/// sent.
public struct FCMMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong. Open: more codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ description: String) { self.description = description }
        /// Over ``FCMLimits/maxMessageBytes`` even with the title and body emptied (the ids are too long).
        public static let tooLarge = Code("tooLarge")
        /// A `data` key FCM reserves (``FCMLimits/isReservedDataKey(_:)``).
        public static let reservedDataKey = Code("reservedDataKey")
        /// `android.ttl` outside 0...28 days.
        public static let invalidTTL = Code("invalidTTL")
    }

    public var code: Code
    /// What is wrong, e.g. `data key 'from' is reserved by FCM`; never holds the registration token.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
