/// Why a ``ServiceGroup`` stopped other than by a graceful shutdown that finished in time.
public struct ServiceGroupError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        private let name: String
        /// A service returned before its group asked it to stop.
        public static let serviceEnded = Code(name: "serviceEnded")
        /// A service threw.
        public static let serviceFailed = Code(name: "serviceFailed")
        /// The shutdown took longer than ``ServiceGroup/Settings/shutdownTimeout``.
        public static let shutdownTimedOut = Code(name: "shutdownTimedOut")
    }
    public var code: Code
    /// The service concerned (the first to end, or those still running at the timeout).
    public var service: String
    public var message: String
    public var cause: (any Error)?

    public var description: String { message }
}
