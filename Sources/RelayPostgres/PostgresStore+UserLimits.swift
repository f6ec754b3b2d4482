import Foundation
import RelayCore
import RelayStore

extension PostgresStore {
    /// The first key of the per-(app, user) locks (`pg_advisory_xact_lock(int, int)`): a constant the relay
    /// uses for nothing else.
    static let userLockClass = 0x7573_6572

    /// Takes the (app, user)'s transaction lock, then checks a registration's or join's counts against
    /// `limits`: the user's live devices besides `token` when a token is given, and the rooms it is in with
    /// those of `rooms` it would join (``lockUser(appId:userId:)``).
    /// - Throws: ``UserLimitExceeded``; the store's error.
    func checkUserLimits(
        _ limits: UserLimits,
        appId: String,
        userId: String,
        token: PushToken?,
        rooms: [String]
    ) throws {
        try lockUser(appId: appId, userId: userId)
        if let token {
            let live = try db.query(UserLimitsSQL.liveDevicesSQL(parameter: { "$\($0)" }), appId, userId, token.value)
            try limits.checkDevices(otherLiveDevices: live[0].int(0), alreadyLive: live[0].int(1) > 0)
        }
        guard !rooms.isEmpty else { return }
        let counts = try db.query(
            """
            SELECT (SELECT count(*) FROM room_members WHERE app_id = $1 AND user_id = $2),
                (SELECT count(DISTINCT room) FROM jsonb_array_elements_text($3::jsonb) AS room WHERE room NOT IN (
                    SELECT room_id FROM room_members WHERE app_id = $1 AND user_id = $2))
            """,
            appId,
            userId,
            try StoredValues.jsonList(rooms)
        )
        try limits.checkRooms(current: counts[0].int(0), joining: counts[0].int(1))
    }

    /// Takes the (app, user)'s transaction lock: writes of one user that count its rows (on any relay) wait
    /// for it and then count this one's. Two users whose keys hash alike only wait for each other.
    func lockUser(appId: String, userId: String) throws {
        try db.query("SELECT pg_advisory_xact_lock($1, hashtext($2 || ' ' || $3))", Self.userLockClass, appId, userId)
    }
}
