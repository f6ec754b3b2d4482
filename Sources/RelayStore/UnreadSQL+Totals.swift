import Foundation
import RelayCore

/// The cached unread totals (`unread_totals`): one row per badge app and user with a live device
/// (``UnreadPolicy/keepsTotals(appId:)``), its total by
/// ``UnreadSQL/totalsSQL(fromDitto:)``'s rule and the source of positions it was counted from (`from_ditto`,
/// a Ditto app's subscriptions or memberships). Each statement runs in the transaction of the change it
/// follows; a row counted from the other source is stale (the app's policy changed) and is neither kept up
/// nor read, only recounted.
extension UnreadSQL {
    /// Recounts the listed users' rows: parameters 1 the app id, 2 a JSON list of distinct user ids, 3 the
    /// source (true: Ditto subscriptions). A listed user with a live device gets its row with its total
    /// (inserted or replaced); ``dropTotalsSQL`` removes the others'.
    package func refreshTotalsSQL(fromDitto: Bool) -> String {
        let p = parameter
        return counts(fromDitto: fromDitto, liveDevicesOnly: true) + """
            ,
            totals (user_id, total) AS (SELECT user_id, sum(n) FROM counts GROUP BY user_id)
            INSERT INTO unread_totals (app_id, user_id, from_ditto, total)
            SELECT CAST(\(p(1)) AS TEXT), u.user_id, CAST(\(p(3)) AS BOOLEAN), CAST(coalesce(t.total, 0) AS BIGINT)
            FROM users AS u LEFT JOIN totals AS t ON t.user_id = u.user_id
            WHERE true
            ON CONFLICT (app_id, user_id) DO UPDATE SET from_ditto = excluded.from_ditto, total = excluded.total
            """
    }

    /// Locks the listed users' cached rows (PostgreSQL's `FOR UPDATE`, in user order) before a recount:
    /// parameters 1 the app id, 2 a JSON list of user ids. A message's update of those rows
    /// (``messageTotalsSQL(fromDitto:)``) either committed before (the recount, a later statement, sees it)
    /// or waits and adds to the recounted total, so a recount never overwrites a message's +1.
    package var lockTotalsSQL: String {
        let p = parameter
        return """
            SELECT user_id FROM unread_totals WHERE app_id = \(p(1)) AND user_id IN (\(userIdsOfList(p(2))))
            ORDER BY user_id FOR UPDATE
            """
    }

    /// Deletes the rows of the listed users without a live device: parameters 1 the app id, 2 a JSON list
    /// of user ids.
    package var dropTotalsSQL: String {
        let p = parameter
        return """
            DELETE FROM unread_totals WHERE app_id = \(p(1)) AND user_id IN (\(userIdsOfList(p(2))))
                AND NOT \(Self.hasLiveDevice(app: "unread_totals.app_id", user: "unread_totals.user_id"))
            """
    }

    /// Deletes the rows of every app but the listed ones: parameter 1 a JSON list of app ids.
    package var dropOtherAppsTotalsSQL: String {
        "DELETE FROM unread_totals WHERE app_id NOT IN (\(userIdsOfList(parameter(1))))"
    }

    /// The listed users' cached totals as rows `user_id, total`: parameters 1 the app id, 2 a JSON list of
    /// user ids, 3 the source the app counts from (a row of the other source is not read).
    package var cachedTotalsSQL: String {
        let p = parameter
        return """
            SELECT user_id, total FROM unread_totals
            WHERE app_id = \(p(1)) AND from_ditto = \(p(3)) AND user_id IN (\(userIdsOfList(p(2))))
            """
    }

    /// Adds parameter 5 (+1 or -1) to the cached total of each user an unarchived message counts for:
    /// parameters 1 the app id, 2 the room id, 3 the sender, 4 the message's time (epoch MILLISECONDS), 6
    /// the source the app counts from. The room's positions drive it
    /// (``countingUsersSQL(fromDitto:app:room:message:condition:)``), each looked up in the cache before its
    /// level: one statement, never a loop over the members.
    package func messageTotalsSQL(fromDitto: Bool) -> String {
        let p = parameter
        let users = Self.countingUsersSQL(
            fromDitto: fromDitto,
            app: p(1),
            room: p(2),
            message: .written(sender: p(3), time: p(4)),
            condition: "EXISTS (SELECT 1 FROM unread_totals AS c WHERE c.app_id = p.app_id AND c.user_id = p.user_id)"
        )
        return """
            UPDATE unread_totals SET total = total + \(p(5))
            WHERE app_id = \(p(1)) AND from_ditto = \(p(6)) AND user_id IN (\(users))
            """
    }

    /// The index row of parameters 1 app id, 2 room id, 3 message key: `sender_id, created_at, archived`,
    /// if any (read before and after ``indexMessageSQL`` to know what the write changed).
    package var indexedMessageSQL: String {
        let p = parameter
        return """
            SELECT sender_id, created_at, archived FROM room_messages
            WHERE app_id = \(p(1)) AND room_id = \(p(2)) AND message_key = \(p(3))
            """
    }

    /// The retention job's next batch: the rooms of the (up to) parameter 2 oldest index rows of any app written
    /// before parameter 1 (epoch MILLISECONDS), each row `app_id, room_id, upto` (the latest of those rows' times
    /// in the room): ``purgeTotalsSQL(fromDitto:)`` then ``deleteRoomMessagesSQL`` take the room's rows up
    /// to it.
    package var oldRoomsSQL: String {
        """
        SELECT b.app_id, b.room_id, max(b.created_at) FROM (
            SELECT app_id, room_id, created_at FROM room_messages WHERE created_at < \(parameter(1))
            ORDER BY created_at LIMIT \(parameter(2))) AS b
        GROUP BY b.app_id, b.room_id
        """
    }

    /// Takes from each cached total the room's messages it counts up to a time, before they are deleted:
    /// parameters 1 the app id, 2 the room id, 3 the time (epoch MILLISECONDS, inclusive), 4 the source the
    /// app counts from. One statement per room, driven by the room's positions before that time.
    package func purgeTotalsSQL(fromDitto: Bool) -> String {
        let p = parameter
        let room = positions(fromDitto: fromDitto, condition: "x.app_id = \(p(1)) AND x.room_id = \(p(2))")
        let position = Self.position(fromDitto: fromDitto, app: p(1), room: p(2), user: "unread_totals.user_id")
        return """
            UPDATE unread_totals SET total = total - (
                SELECT count(*) FROM room_messages AS msg
                WHERE msg.app_id = \(p(1)) AND msg.room_id = \(p(2)) AND msg.created_at <= \(p(3))
                    AND \(Self.unread(position: position, user: "unread_totals.user_id")))
            WHERE app_id = \(p(1)) AND from_ditto = \(p(4)) AND user_id IN (
                SELECT p.user_id FROM (\(room)) AS p
                WHERE p.read_at < \(p(3))
                    AND EXISTS (SELECT 1 FROM unread_totals AS c WHERE c.app_id = p.app_id AND c.user_id = p.user_id)
                    AND \(Self.countedRoom))
            """
    }

    /// Deletes app parameter 1's cached totals of the users whose read position in room parameter 2 is
    /// before parameter 3 (epoch MILLISECONDS: the time retention purges the room up to), by either source:
    /// the retention job's step for a room of an app whose totals this relay does not keep (another relay's
    /// app, or one whose badges this relay's configuration lacks). Not knowing how the app counts, it cannot
    /// take the room's deleted messages from those totals, so it drops them, and a claim that needs one
    /// recounts it (``UnreadTotalsLookup``). Driven by the room's positions, each a seek of the cache: an
    /// app nobody keeps totals for has no row to delete.
    package var dropRoomTotalsSQL: String {
        let p = parameter
        let readers = [false, true].map { fromDitto in
            let room = positions(fromDitto: fromDitto, condition: "x.app_id = \(p(1)) AND x.room_id = \(p(2))")
            return "SELECT p.user_id FROM (\(room)) AS p WHERE p.read_at < \(p(3))"
        }
        return """
            DELETE FROM unread_totals WHERE app_id = \(p(1)) AND user_id IN (\(readers.joined(separator: " UNION ")))
            """
    }

    /// Deletes the index rows of room parameter 2 of app parameter 1 written up to parameter 3 (epoch
    /// MILLISECONDS, inclusive).
    package var deleteRoomMessagesSQL: String {
        let p = parameter
        return "DELETE FROM room_messages WHERE app_id = \(p(1)) AND room_id = \(p(2)) AND created_at <= \(p(3))"
    }

    /// What an index write did to its room's cached totals, given the message's row before and after it
    /// (nil: none): nothing when the row is unchanged; else -1 for the row before, when unarchived (it
    /// counted with its sender and time), and +1 for the row after, when unarchived. So an upsert that
    /// archives, changes the sender or moves the time adjusts the totals exactly as a recount would.
    package static func totalsChanges(before: IndexRow?, after: IndexRow?) -> [(delta: Int, row: IndexRow)] {
        guard before != after else { return [] }
        var changes: [(delta: Int, row: IndexRow)] = []
        if let before, !before.isArchived { changes.append((-1, before)) }
        if let after, !after.isArchived { changes.append((1, after)) }
        return changes
    }

    /// One message's row in the room index (``indexedMessageSQL``).
    package struct IndexRow: Equatable, Sendable {
        package var senderId: String
        package var createdAt: Date
        package var isArchived: Bool

        package init(senderId: String, createdAt: Date, isArchived: Bool) {
            self.senderId = senderId
            self.createdAt = createdAt
            self.isArchived = isArchived
        }

        /// A row of ``indexedMessageSQL``.
        package init(row: some StoredRow) throws {
            self.init(senderId: row.string(0), createdAt: try row.date(1), isArchived: try row.bool(2))
        }
    }
}
