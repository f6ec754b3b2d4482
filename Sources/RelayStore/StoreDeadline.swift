/// The instant by which the store calls of the current task must START, when it has one: a request handler
/// sets it (its arrival plus `storage.requestDeadlineMilliseconds`), and ``StorePool`` refuses a call that
/// cannot get a connection by then with ``StoreError/Code/unavailable``. Background work (the dispatcher,
/// retention) has none and waits for a connection as long as it takes.
public enum StoreDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?
}
