import Foundation
import RelayStore

extension SQLiteStore {
    public func endPendingWork(appId: String, at: Date) async throws -> EndedWork {
        let statements = EndedWork.statements { "?\($0)" }
        return try db.transaction {
            func run(_ sql: String, parameters: Int) throws -> Int {
                try db.withStatement(sql) {
                    try $0.bind(1, appId)
                    if parameters > 1 {
                        try $0.bind(2, at)
                        try $0.bind(3, EndedWork.reason)
                    }
                    try $0.run()
                }
                return db.changes
            }
            return EndedWork(
                deliveries: try run(statements.deliveries, parameters: 3),
                badgeUpdates: try run(statements.badges, parameters: 1),
                feedback: try run(statements.feedback, parameters: 1)
            )
        }
    }
}
