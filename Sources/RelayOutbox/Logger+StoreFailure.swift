import RelayCore
import RelayStore

extension Logger {
    /// Logs a background loop's failed store call, with its `error`: at `level`, or at debug while storage is
    /// away or damaged (``RelayStore/StorageHealth/logsOnce(_:)``), which the store's health logs once, so a
    /// loop that meets it at every turn adds no line a turn for as long as it lasts.
    package func storeCallFailed(
        _ message: String,
        _ error: any Error,
        _ metadata: Logger.Metadata = [:],
        level: Logger.Level = .error
    ) {
        var metadata = metadata
        metadata["error"] = "\(error)"
        log(StorageHealth.logsOnce(error) ? .debug : level, message, metadata)
    }
}
