import Foundation
import RelayCore
import RelayStore

extension SQLiteStore {
    /// Checks a registration's or join's counts against `limits` inside the caller's write transaction
    /// (`BEGIN IMMEDIATE` holds the database's write lock, so no other write of the user runs meanwhile):
    /// the user's live devices besides `token` when a token is given, and the rooms it is in with those of
    /// `rooms` it would join.
    /// - Throws: ``UserLimitExceeded``; the store's error.
    func checkUserLimits(
        _ limits: UserLimits,
        appId: String,
        userId: String,
        token: PushToken?,
        rooms: [String]
    ) throws {
        if let token {
            let (others, already) = try db.withStatement(UserLimitsSQL.liveDevicesSQL(parameter: { "?\($0)" })) {
                try $0.bind(1, appId)
                try $0.bind(2, userId)
                try $0.bind(3, token.value)
                return try $0.step() ? ($0.int(0), $0.int(1)) : (0, 0)
            }
            try limits.checkDevices(otherLiveDevices: others, alreadyLive: already > 0)
        }
        guard !rooms.isEmpty else { return }
        let (current, joining) = try db.withStatement(
            """
            SELECT (SELECT count(*) FROM room_members WHERE app_id = ?1 AND user_id = ?2),
                (SELECT count(DISTINCT value) FROM json_each(?3) WHERE value NOT IN (
                    SELECT room_id FROM room_members WHERE app_id = ?1 AND user_id = ?2))
            """
        ) { statement -> (Int, Int) in
            try statement.bind(1, appId)
            try statement.bind(2, userId)
            try statement.bind(3, try StoredValues.jsonList(rooms))
            return try statement.step() ? (statement.int(0), statement.int(1)) : (0, 0)
        }
        try limits.checkRooms(current: current, joining: joining)
    }
}
