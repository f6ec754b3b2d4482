import RelayStore
import Testing

@testable import RelayServer

/// What a call the store could not take answers: 503 `storage_unavailable`, saying nothing was recorded, but
/// for a database that stopped answering (`io`, perhaps while it committed), whose outcome is not known.
@Suite struct StorageUnavailableAnswerTests {
    @Test func onlyADatabaseThatStoppedAnsweringLeavesTheOutcomeInDoubt() throws {
        for code in [StoreError.Code.busy, .unavailable, .conflict, .readOnly, .corrupt] {
            let answer = try #require(RelayAPI.storageUnavailable(StoreError(code: code, message: "m")))
            #expect(answer.status == 503 && answer.code == "storage_unavailable")
            #expect(answer.message.hasSuffix("nothing was recorded"), "\(code): \(answer.message)")
        }
        let frozen = try #require(RelayAPI.storageUnavailable(StoreError(code: .io, message: "no answer in 10 s")))
        #expect(frozen.status == 503 && frozen.message.contains("whether it was recorded is not known"))
        #expect(!frozen.message.contains("nothing was recorded"))
        // An I/O failure known to have committed nothing (unreachable, failed before its commit, disk full).
        let unreachable = StoreError(code: .io, message: "PostgreSQL is unreachable", committedNothing: true)
        let known = try #require(RelayAPI.storageUnavailable(unreachable))
        #expect(known.message.hasSuffix("nothing was recorded"), "\(known.message)")
        #expect(RelayAPI.storageUnavailable(StoreError(code: .constraint, message: "m")) == nil)
    }
}
