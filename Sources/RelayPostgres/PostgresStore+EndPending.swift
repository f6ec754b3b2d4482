import Foundation
import RelayStore

extension PostgresStore {
    public func endPendingWork(appId: String, at: Date) async throws -> EndedWork {
        let statements = EndedWork.statements { "$\($0)" }
        return try db.transaction {
            EndedWork(
                deliveries: try db.query(statements.deliveries, appId, at, EndedWork.reason).changed,
                badgeUpdates: try db.query(statements.badges, appId).changed,
                feedback: try db.query(statements.feedback, appId).changed,
                appKnown: try db.query(statements.known, appId)[0].int(0) == 1
            )
        }
    }
}
