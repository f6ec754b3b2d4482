/// The badge updates' statements (table `badge_updates`), written once for both engines: each gives how it
/// spells a parameter and the ids of a JSON list parameter.
///
/// One row per device (unique on app id and token): `due_at` is when its pending update is due (NULL: none
/// pending), `sent_at` when the last one was sent, `window_ms` the app's `badgeUpdateSeconds` in
/// MILLISECONDS. `version` grows with every change to the user's count and `claimed_version` is the
/// version a claim took, so a change that lands while the update is in flight makes another one after it.
/// Times are epoch MILLISECONDS.
package struct BadgeUpdateSQL: Sendable {
    /// Parameter `n` (1 is the first).
    package var parameter: @Sendable (Int) -> String
    /// A query of one column: the integers of the JSON array in the given parameter.
    package var idsOfList: @Sendable (String) -> String

    package init(
        parameter: @escaping @Sendable (Int) -> String,
        idsOfList: @escaping @Sendable (String) -> String
    ) {
        self.parameter = parameter
        self.idsOfList = idsOfList
    }

    /// Gives each live iOS and Android device of a user one pending update: parameters 1 app id, 2 user id,
    /// 3 now, 4 the window. A device with none pending gets one due at the later of now and its last send
    /// plus the window; one already pending keeps its due time (the change coalesces into it). Set-based
    /// over the user's devices (`devices_by_user`).
    package var enqueueSQL: String { enqueueSQL(users: "= \(parameter(2))") }

    /// ``enqueueSQL`` for the users `users` names, a condition on the user id (`= ?2`, `IN (SELECT …)`)
    /// whose parameters are 2 and from 5 on: many users' devices in one statement.
    package func enqueueSQL(users: String) -> String {
        let p = parameter
        return """
            INSERT INTO badge_updates (app_id, token, user_id, window_ms, due_at, version, attempts)
            SELECT d.app_id, d.token, d.user_id, \(p(4)), \(p(3)), 1, 0 FROM devices AS d
            WHERE d.app_id = \(p(1)) AND d.user_id \(users) AND d.state = 'live'
                AND d.platform IN ('ios', 'android')
            ON CONFLICT (app_id, token) DO UPDATE SET user_id = excluded.user_id, window_ms = excluded.window_ms,
                version = badge_updates.version + 1,
                attempts = CASE WHEN badge_updates.due_at IS NULL THEN 0 ELSE badge_updates.attempts END,
                due_at = CASE WHEN badge_updates.due_at IS NOT NULL THEN badge_updates.due_at
                    WHEN badge_updates.sent_at IS NULL
                        OR badge_updates.sent_at + excluded.window_ms <= excluded.due_at THEN excluded.due_at
                    ELSE badge_updates.sent_at + excluded.window_ms END
            """
    }

    /// One row when the user (parameter 2) of app parameter 1 has a live device an update can reach (a seek
    /// of `devices_by_user`): without one a read counts nothing.
    package var hasDevicesSQL: String {
        """
        SELECT 1 FROM devices
        WHERE app_id = \(parameter(1)) AND user_id = \(parameter(2)) AND state = 'live'
            AND platform IN ('ios', 'android')
        LIMIT 1
        """
    }

    /// The apps with an update due at parameter 1 that holds no live lease, by app id.
    package var dueAppsSQL: String {
        """
        SELECT DISTINCT app_id FROM badge_updates
        WHERE due_at <= \(parameter(1)) AND (lease_until IS NULL OR lease_until < \(parameter(1)))
        ORDER BY app_id
        """
    }

    /// An update sent: parameters 1 its id, 2 now. Done, unless the count changed after it was claimed:
    /// then the next one is due a window after this send.
    package var sentSQL: String {
        let p = parameter
        return """
            UPDATE badge_updates SET sent_at = \(p(2)), attempts = 0, lease_owner = NULL, lease_until = NULL,
                due_at = CASE WHEN version = claimed_version THEN NULL ELSE \(p(2)) + window_ms END
            WHERE id = \(p(1))
            """
    }

    /// An update to try again: parameters 1 its id, 2 when.
    package var retrySQL: String {
        """
        UPDATE badge_updates SET due_at = \(parameter(2)), attempts = attempts + 1, lease_owner = NULL,
            lease_until = NULL
        WHERE id = \(parameter(1))
        """
    }

    /// An update given up (refused, or its topic unlinked): parameter 1 its id. Nothing is pending until
    /// the count next goes down.
    package var dropSQL: String {
        """
        UPDATE badge_updates SET due_at = NULL, attempts = 0, lease_owner = NULL, lease_until = NULL
        WHERE id = \(parameter(1))
        RETURNING app_id, token
        """
    }

    /// Deletes the row of update parameter 1 (its device is gone, retired or another user's) and returns
    /// its device.
    package var deleteSQL: String {
        "DELETE FROM badge_updates WHERE id = \(parameter(1)) RETURNING app_id, token"
    }

    /// Clears parameter 2's leases on the updates of the JSON list parameter 1, so they can be claimed at
    /// once.
    package var releaseSQL: String {
        """
        UPDATE badge_updates SET lease_owner = NULL, lease_until = NULL
        WHERE id IN (\(idsOfList(parameter(1)))) AND lease_owner = \(parameter(2))
        """
    }

    /// Clears every lease of owner parameter 1.
    package var releaseOwnerSQL: String {
        "UPDATE badge_updates SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = \(parameter(1))"
    }

    /// Deletes up to parameter 2 rows with nothing pending whose last send (if any) was before parameter 1:
    /// a row older than the longest window changes no due time.
    package var pruneSQL: String {
        """
        DELETE FROM badge_updates WHERE id IN (
            SELECT id FROM badge_updates
            WHERE due_at IS NULL AND (sent_at IS NULL OR sent_at < \(parameter(1)))
            LIMIT \(parameter(2)))
        """
    }
}
