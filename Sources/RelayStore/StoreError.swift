import RelayCore

/// A store operation that failed, with a ``Code`` callers can switch on and a message for logs.
///
/// Messages name the failing call and SQLite's (or the backend's) own text; they never carry a full
/// device token (only ``RelayCore/DeviceToken/suffix``).
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible, TerminalMessage {
    /// What kind of failure: an open set, so backends can add codes without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        /// The database could not be opened or created (path, permissions, not a database).
        public static let open = Code("open")
        /// A constraint (unique, foreign key, check, not null) refused the write.
        public static let constraint = Code("constraint")
        /// The database stayed locked by another connection longer than the busy timeout.
        public static let busy = Code("busy")
        /// The transaction met a concurrent one and the server rolled it back (PostgreSQL: a deadlock or a
        /// serialization failure); the same call may succeed when run again.
        public static let conflict = Code("conflict")
        /// The file is damaged or not a database.
        public static let corrupt = Code("corrupt")
        /// A row the call needs does not exist.
        public static let notFound = Code("notFound")
        /// Reading or writing the file failed (I/O error, disk full).
        public static let io = Code("io")
        /// The database is read-only.
        public static let readOnly = Code("readOnly")
        /// A value the store cannot keep (PostgreSQL: a NUL character, SQLSTATE class 22, a data exception),
        /// or a stored value that could not be turned back into a model (e.g. an invalid token in a row).
        public static let invalidData = Code("invalidData")
        /// No connection to the database was free by the request's deadline (``StoreDeadline``): the call
        /// was not started.
        public static let unavailable = Code("unavailable")
        /// A schema migration failed, or the schema is newer than this build knows.
        public static let migration = Code("migration")
        /// Another live relay holds the instance id this one was given (``Store/claimInstance(_:)``).
        public static let instanceInUse = Code("instanceInUse")
        /// A `storage copy` into this store has not finished (``StoreCopy/Mark``): no relay serves it.
        public static let copyUnfinished = Code("copyUnfinished")
        /// Anything else (misuse, internal error); the message says which call.
        public static let other = Code("other")
    }

    public var code: Code
    public var message: String
    /// Set on an I/O failure (``Code/io``) known to have committed nothing: the server could not be reached,
    /// the transaction failed before its commit, or the disk was full. An `io` failure without it may have
    /// committed (the database stopped answering while it committed).
    public var committedNothing: Bool

    public init(code: Code, message: String, committedNothing: Bool = false) {
        self.code = code
        self.message = message
        self.committedNothing = committedNothing
    }

    /// `error` marked ``committedNothing`` when it is a ``StoreError``; any other error as it is.
    public static func committingNothing(_ error: any Error) -> any Error {
        guard var failure = error as? StoreError else { return error }
        failure.committedNothing = true
        return failure
    }

    public var description: String { "\(code): \(message)" }

    /// Whether the store cannot take the call just now but the same call may succeed later: unreachable
    /// or failing I/O, locked, read-only, no connection free by the deadline, or a conflict that outlasted
    /// the retries. Nothing of the call was recorded.
    public var isTransient: Bool { [.io, .busy, .conflict, .readOnly, .unavailable].contains(code) }

    /// Whether the storage itself is away: it cannot be reached, failed its I/O (a full disk), did not answer
    /// in time, or stayed locked past the busy timeout (another process writing the SQLite file).
    /// ``StorageHealth`` logs such a spell once. No connection free by a request's deadline
    /// (``Code/unavailable``) is not one: a busy store refuses so too.
    public var meansStorageAway: Bool { [.io, .busy].contains(code) }

    /// Whether the store is damaged (``Code/corrupt``): ``StorageHealth`` logs it once, and ``StorePool``
    /// makes no more calls of the store.
    public var meansDamage: Bool { code == .corrupt }

    /// Whether the store refused the call for the values it was given or found (one it cannot keep, a
    /// constraint, a stored value it cannot read back), so the same call fails again whenever it is made.
    public var refusesData: Bool { [.invalidData, .constraint].contains(code) }
}
