import Foundation
import RelayCLI
import RelayCore
import RelayStore

/// `push-relay storage requery-done --app ID [--txn-id N] [--config FILE | --store LOCATION]`: marks an app's pending
/// `requeryRequired` complete, for an operator who re-fed its rooms and users collections by other means (an
/// app without `apps[].ditto.httpAPI`; for one with it, named by the configuration, it warns that the relay's
/// own re-read may not have finished); its `ditto:<app>` readiness check turns `ok`. With `--txn-id`, only a
/// requery at or below N (the one the re-feed answered): a later one stays pending, and N above the pending
/// one clears that one only, so no requery yet to come counts as done. Prints one JSON line: the app and the
/// txnId cleared (null when none was, also said on standard error). Exit status 2 for a mistake in the
/// command, 1 when the store cannot be opened (a SQLite path with no store: none is made) or written.
enum StorageRequeryCommand {
    static let summary = """
        Marks the app's pending Ditto requeryRequired complete, after its rooms, DM rooms and users
          collections were re-fed (POST /v1/ditto/events or the bridge); the app's readiness check turns ok.
          --txn-id N clears it only when its txnId is N or below (the requery the re-feed answered).
        """

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let answered = try answeredTxnId(arguments)
        let (store, app, configured) = try await StorageLocation.openAppStore(arguments)
        guard let pending = try await store.pendingDittoRequeries()[app] else {
            try report(app: app, cleared: nil)
            FileHandle.standardError.writeLine("push-relay storage: app '\(app)' had no requeryRequired pending")
            return 0
        }
        if let answered, answered < pending {
            try report(app: app, cleared: nil)
            FileHandle.standardError.writeLine(
                "push-relay storage: the pending requeryRequired (txnId \(pending)) came after --txn-id "
                    + "\(answered): re-feed the collections again and run this for it"
            )
            return 0
        }
        if configured?.ditto?.httpAPI != nil {
            FileHandle.standardError.writeLine(
                "push-relay storage: app '\(app)' re-reads its collections itself (apps[].ditto.httpAPI); the "
                    + "requeryRequired is marked done whether or not that re-read finished"
            )
        }
        let left = try await store.completeDittoRequery(appId: app, txnId: pending, owner: nil)
        try report(app: app, cleared: pending)
        if let left {
            FileHandle.standardError.writeLine(
                "push-relay storage: a later requeryRequired (txnId \(left)) arrived meanwhile"
            )
        }
        return 0
    }

    /// `--txn-id`: the txnId of the requery the operator's re-feed answered, nil when not given; a Ditto
    /// event's txnId is 0 to 2^63 - 1 (the relay refuses any other).
    private static func answeredTxnId(_ arguments: Arguments) throws(Arguments.Problem) -> UInt64? {
        guard let text = arguments.value("txn-id") else { return nil }
        guard let number = Int64(text), number >= 0 else {
            throw Arguments.Problem(description: "--txn-id must be a txnId, 0 to \(Int64.max), got '\(text)'")
        }
        return UInt64(number)
    }

    private static func report(app: String, cleared: UInt64?) throws {
        let line = try JSONSerialization.data(
            withJSONObject: ["app": app, "cleared": cleared.map { NSNumber(value: $0) } ?? NSNull()],
            options: [.sortedKeys]
        )
        say(String(decoding: line, as: UTF8.self))
    }
}
