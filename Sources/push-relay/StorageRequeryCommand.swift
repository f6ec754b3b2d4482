import Foundation
import RelayCLI
import RelayCore
import RelayStore

/// `push-relay storage requery-done --store LOCATION --app ID`: marks an app's pending `requeryRequired`
/// complete, for an operator who re-fed its rooms and users collections by other means (an app without
/// `apps[].ditto.httpAPI`); its `ditto:<app>` readiness check turns `ok`. Prints one JSON line: the app and
/// the txnId cleared (null when none was pending, also said on standard error). Exit status 2 for a mistake
/// in the command, 1 when the store cannot be opened (a SQLite path with no store: none is made) or written.
enum StorageRequeryCommand {
    static let summary = """
        Marks the app's pending Ditto requeryRequired complete, after its rooms, DM rooms and users
          collections were re-fed (POST /v1/ditto/events or the bridge); the app's readiness check turns ok.
        """

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let (store, app) = try StorageLocation.openAppStore(arguments)
        let pending = try await store.pendingDittoRequeries()[app]
        let left = try await store.completeDittoRequery(appId: app, txnId: pending, owner: nil)
        let report: [String: Any] = ["app": app, "cleared": pending.map { NSNumber(value: $0) } ?? NSNull()]
        let line = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        say(String(decoding: line, as: UTF8.self))
        if pending == nil {
            FileHandle.standardError.writeLine("push-relay storage: app '\(app)' had no requeryRequired pending")
        }
        if let left {
            FileHandle.standardError.writeLine(
                "push-relay storage: a later requeryRequired (txnId \(left)) arrived meanwhile"
            )
        }
        return 0
    }
}
