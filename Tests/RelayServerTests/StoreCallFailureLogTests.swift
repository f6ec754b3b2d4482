import RelayCore
import RelayStore
import Testing

@testable import RelayOutbox

/// A background loop's failed store call is an error line (or the level its loop gives), save while storage
/// is away or damaged: the store's health logs that once, and the loop's line each turn goes to debug.
@Suite struct StoreCallFailureLogTests {
    @Test func anOutageIsLoggedAtDebugAndAnyOtherFailureAtError() {
        let lines = MemoryLogHandler()
        let logger = Logger(label: "test", level: .debug, handler: lines)
        logger.storeCallFailed("claiming deliveries failed", StoreError(code: .io, message: "gone"), ["app.id": "a"])
        logger.storeCallFailed("claiming feedback failed", StoreError(code: .busy, message: "database is locked"))
        logger.storeCallFailed("claiming feedback failed", StoreError(code: .invalidData, message: "bad row"))
        logger.storeCallFailed("claiming feedback failed", CancellationError())
        let corrupt = StoreError(code: .corrupt, message: "database disk image is malformed")
        logger.storeCallFailed("retention run failed", corrupt, level: .warning)
        logger.storeCallFailed("retention run failed", StoreError(code: .invalidData, message: "bad"), level: .warning)
        #expect(lines.entries.map(\.level) == [.debug, .debug, .error, .error, .debug, .warning])
        #expect(lines.entries[0].metadata["error"]?.contains("gone") == true)
        #expect(lines.entries[0].metadata["app.id"] == "a")
        #expect(lines.entries[2].metadata["error"]?.contains("bad row") == true)
    }
}
