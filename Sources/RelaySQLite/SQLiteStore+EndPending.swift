import Foundation
import RelayStore

extension SQLiteStore {
    public func endPendingWork(appId: String, at: Date) async throws -> EndedWork {
        let statements = EndedWork.statements { "?\($0)" }
        return try db.transaction {
            /// Runs `sql` with the app id as parameter 1 and what `bind` adds; the rows it changed.
            func run(_ sql: String, _ bind: (SQLiteStatement) throws -> Void = { _ in }) throws -> Int {
                try db.withStatement(sql) {
                    try $0.bind(1, appId)
                    try bind($0)
                    try $0.run()
                }
                return db.changes
            }
            return EndedWork(
                deliveries: try run(statements.deliveries) {
                    try $0.bind(2, at)
                    try $0.bind(3, EndedWork.reason)
                },
                badgeUpdates: try run(statements.badges),
                feedback: try run(statements.feedback),
                appKnown: try db.withStatement(statements.known) {
                    try $0.bind(1, appId)
                    return try $0.step() && $0.int(0) == 1
                }
            )
        }
    }
}
