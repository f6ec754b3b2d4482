import Foundation
import RelayCore

extension BadgeUpdateJob {
    /// The columns ``claimed(row:appId:)`` reads, in its order: of the `badge_updates` row named `update`,
    /// then of its device's row named `device` (NULL when the device was deleted).
    package static func columns(update: String, device: String) -> String {
        StoredColumns.list(["id", "token", "user_id", "attempts"], of: update) + ", "
            + StoredColumns.list(
                ["state", "environment", "updated_at", "platform", "user_id", "address"],
                of: device
            )
    }

    /// What a claimed update becomes: a job for `userId` (its badge still 0), or, when its device is gone,
    /// no longer live or now another user's, the id of an update to end.
    package enum Claimed {
        case job(BadgeUpdateJob, userId: String)
        case ended(updateId: Int64)
    }

    /// A claimed update of `appId` from a row that starts with ``columns(update:device:)``.
    /// - Throws: ``StoreError`` `.invalidData` for a token that is none.
    package static func claimed(row: some StoredRow, appId: String) throws -> Claimed {
        let id = try row.int64(0)
        let userId = row.string(2)
        guard row.optionalString(4) == DeviceState.live.rawValue, row.optionalString(8) == userId else {
            return .ended(updateId: id)
        }
        let job = BadgeUpdateJob(
            updateId: id,
            appId: appId,
            token: try row.token(1, platform: 7, address: 9, scope: 5),
            attempts: try row.int(3),
            deviceRegisteredAt: try row.date(6),
            badge: 0
        )
        return .job(job, userId: userId)
    }
}
