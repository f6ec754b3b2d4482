import RelayCore
import RelayStore

extension PostgresStore {
    /// A ``RelayStore/StorePool`` of `size` stores on `url`, each with its own connection and thread: the
    /// relay's store with `storage.postgres.poolSize` connections. The first store migrates the database,
    /// the others find it current.
    /// - Parameters:
    ///   - statementTimeout: as ``init(url:logger:timeSource:statementTimeout:)``.
    ///   - onFenced: called once, on the store's thread, after the relay lost its instance lock to another
    ///     process (``claimInstance(_:)``); every call of the pool throws `.instanceInUse` from then on.
    /// - Throws: ``RelayStore/StoreError`` as ``init(url:logger:timeSource:statementTimeout:)``.
    public static func pool(
        url: String,
        size: Int,
        logger: Logger,
        timeSource: any TimeSource = SystemTimeSource(),
        statementTimeout: Double = 10,
        onFenced: @escaping @Sendable (StoreError) -> Void = { _ in }
    ) throws -> StorePool {
        let fence = InstanceFence(logger: logger, onFenced: onFenced)
        let cursors = ClaimCursors()
        let first = try PostgresStore(
            url: url,
            logger: logger,
            timeSource: timeSource,
            statementTimeout: statementTimeout,
            fence: fence,
            claimCursors: cursors
        )
        // The others open quietly: one "opened" line per relay.
        let others = try (1..<max(1, size)).map { _ in
            try PostgresStore(
                url: url,
                logger: .disabled(),
                timeSource: timeSource,
                statementTimeout: statementTimeout,
                fence: fence,
                claimCursors: cursors
            )
        }
        return StorePool(members: [first] + others, logger: logger.with(["component": "storage"]))
    }
}
