/// The unread rule as SQL, written once for both engines: each gives how it spells a parameter and the
/// user ids of a JSON list parameter.
///
/// A user's read positions are its Ditto subscriptions with a date (a Ditto app) or its memberships (from
/// `read_at`, else the join time); a room at level `none` (``countedRoom``) does not count. Unread in a
/// room = the room's indexed messages (`room_messages`) from others, not archived, written after the
/// position, counted by a range of the index from the position: never a loop over the room's members.
package struct UnreadSQL: Sendable {
    /// Parameter `n` (1 is the first).
    package var parameter: @Sendable (Int) -> String
    /// A query of one column `user_id`: the strings of the JSON array in the given parameter.
    package var userIdsOfList: @Sendable (String) -> String
    /// What follows a table to make it use the named index (SQLite's `INDEXED BY`; empty where the planner
    /// needs no hint).
    package var indexed: @Sendable (String) -> String

    package init(
        parameter: @escaping @Sendable (Int) -> String,
        userIdsOfList: @escaping @Sendable (String) -> String,
        indexed: @escaping @Sendable (String) -> String
    ) {
        self.parameter = parameter
        self.userIdsOfList = userIdsOfList
        self.indexed = indexed
    }

    /// Whether `user` read `room` of `app` up to `time` (SQL expressions; times epoch MILLISECONDS): its
    /// read position is at or after `time`. The position is its Ditto subscription's date (a Ditto app) or
    /// its membership's `read_at`, moved only by a read (a join is no read). The grace window's rule
    /// (``DeliveryStatus/cancelled``, ``CancelReason/read``), decided in the claim's transaction.
    package static func readReached(app: String, room: String, user: String, time: String, fromDitto: Bool) -> String {
        "EXISTS (SELECT 1 FROM \(readersFrom(app: app, room: room, time: time, fromDitto: fromDitto)) AND rp.user_id = \(user))"
    }

    /// The users who read `room` of `app` up to `time` (``readReached(app:room:user:time:fromDitto:)``), one
    /// column `user_id`: for an engine with an index of read positions by room and time, a range of it.
    package static func readers(app: String, room: String, time: String, fromDitto: Bool) -> String {
        "SELECT rp.user_id FROM \(readersFrom(app: app, room: room, time: time, fromDitto: fromDitto))"
    }

    /// The read positions (alias `rp`) of `room` at or after `time`: the one place of the rule.
    private static func readersFrom(app: String, room: String, time: String, fromDitto: Bool) -> String {
        let table = fromDitto ? "ditto_subscriptions" : "room_members"
        return "\(table) AS rp WHERE rp.app_id = \(app) AND rp.room_id = \(room) AND rp.read_at >= \(time)"
    }

    /// Whether position `p`'s room counts: the user's level for it (``NotifyLevelSQL``) is not `none`.
    package static let countedRoom =
        NotifyLevelSQL.level(app: "p.app_id", room: "p.room_id", user: "p.user_id") + " <> 'none'"

    /// The table of read positions and a position's expression over its alias `alias`: a Ditto app's
    /// subscriptions (a NULL date is none), else memberships (`read_at`, else the join time).
    static func positionSource(fromDitto: Bool, alias: String = "x") -> (table: String, readAt: String) {
        fromDitto
            ? ("ditto_subscriptions", "\(alias).read_at")
            : ("room_members", "coalesce(\(alias).read_at, \(alias).joined_at)")
    }

    /// The read positions (`app_id, user_id, room_id, read_at`, of alias `x`) that meet `condition`
    /// (``positionSource(fromDitto:)``). `join` precedes the table; `hint` (an index hint) follows it.
    func positions(fromDitto: Bool, join: String = "", hint: String = "", condition: String) -> String {
        let source = Self.positionSource(fromDitto: fromDitto)
        return """
            SELECT x.app_id, x.user_id, x.room_id, \(source.readAt) AS read_at FROM \(join)\(source.table) AS x \(hint)
            WHERE \(condition) AND \(source.readAt) IS NOT NULL
            """
    }

    /// `user`'s read position in `room` of `app` (SQL expressions) as a scalar subquery; NULL: none.
    static func position(fromDitto: Bool, app: String, room: String, user: String) -> String {
        let source = positionSource(fromDitto: fromDitto)
        return """
            (SELECT \(source.readAt) FROM \(source.table) AS x
            WHERE x.app_id = \(app) AND x.room_id = \(room) AND x.user_id = \(user))
            """
    }

    /// Whether `user` of `app` (SQL expressions) has a live device: a scalar subquery, so each user is a
    /// seek of `devices_by_user` by its id. PostgreSQL turns an `EXISTS` into a join, and on a table without
    /// statistics yet (a new database filling up) it may join the user to every live device of the app.
    static func hasLiveDevice(app: String, user: String) -> String {
        """
        ((SELECT 1 FROM devices AS d WHERE d.app_id = \(app) AND d.user_id = \(user) AND d.state = 'live' LIMIT 1)
            IS NOT NULL)
        """
    }

    /// Whether message `msg` counts as unread for `user` at `position` (SQL expressions): from another
    /// user, not archived, written after the position.
    static func unread(position: String, user: String) -> String {
        "msg.created_at > \(position) AND msg.sender_id <> \(user) AND NOT msg.archived"
    }

    /// ``unread(position:user:)`` at position `p` of a ``positions(fromDitto:join:hint:condition:)`` row.
    static let unreadAtPosition = unread(position: "p.read_at", user: "p.user_id")

    /// `counts (user_id, room_id, n)`: parameters 1 the app id, 2 a JSON list of user ids (with
    /// `liveDevicesOnly`, those of them with a live device). The listed users drive the loop (CROSS JOIN
    /// fixes SQLite's order), each a seek of the per-user index (SQLite, without statistics, would rather
    /// scan the app's part of the primary key), never a scan of the app's positions.
    func counts(fromDitto: Bool, liveDevicesOnly: Bool = false) -> String {
        let app = parameter(1)
        let filter = liveDevicesOnly ? " WHERE " + Self.hasLiveDevice(app: app, user: "listed.user_id") : ""
        let rows = positions(
            fromDitto: fromDitto,
            join: "users AS u CROSS JOIN ",
            hint: indexed(fromDitto ? "ditto_subscriptions_by_user" : "room_members_by_user"),
            condition: "x.app_id = \(app) AND x.user_id = u.user_id"
        )
        return """
            WITH listed (user_id) AS (\(userIdsOfList(parameter(2)))),
            users (user_id) AS (SELECT user_id FROM listed\(filter)),
            positions (app_id, user_id, room_id, read_at) AS (\(rows)),
            counts (user_id, room_id, n) AS (
                SELECT p.user_id, p.room_id, (
                    SELECT count(*) FROM room_messages AS msg
                    WHERE msg.app_id = p.app_id AND msg.room_id = p.room_id AND \(Self.unreadAtPosition))
                FROM positions AS p
                WHERE \(Self.countedRoom)
            )
            """
    }

    /// The users (one column, `user_id`) whose unread count in room `room` of `app` holds indexed message
    /// `key`, or any message when `key` is nil (SQL expressions): a position before the message, another
    /// sender, not archived, the room counted, and `condition` on the position `p`. One range of the room's
    /// positions, set-based.
    package static func countingUsersSQL(
        fromDitto: Bool,
        app: String,
        room: String,
        key: String?,
        condition: String = "TRUE"
    ) -> String {
        countingUsersSQL(fromDitto: fromDitto, app: app, room: room, message: .indexed(key: key), condition: condition)
    }

    /// A message ``countingUsersSQL(fromDitto:app:room:message:condition:)`` counts for (SQL expressions).
    package enum CountedMessage {
        /// The room's indexed message `key` as the index holds it, or any of them (nil).
        case indexed(key: String?)
        /// An unarchived message by `sender` at `time` (epoch MILLISECONDS), whatever the index holds now.
        case written(sender: String, time: String)
    }

    /// The users (one column, `user_id`) whose unread count in room `room` of `app` holds `message` (SQL
    /// expressions): a position before the message, another sender, not archived, the room counted, and
    /// `condition` (tested before the level) on the position `p`. One range of the room's positions.
    package static func countingUsersSQL(
        fromDitto: Bool,
        app: String,
        room: String,
        message: CountedMessage,
        condition: String = "TRUE"
    ) -> String {
        let (table, position) = positionSource(fromDitto: fromDitto, alias: "p")
        let counted: String
        switch message {
        case .indexed(let key):
            let keyed = key.map { "msg.message_key = \($0) AND " } ?? ""
            let isUnread = unread(position: position, user: "p.user_id")
            counted = """
                EXISTS (SELECT 1 FROM room_messages AS msg
                    WHERE msg.app_id = p.app_id AND msg.room_id = p.room_id AND \(keyed)\(isUnread))
                """
        case .written(let sender, let time):
            counted = "\(position) < \(time) AND p.user_id <> \(sender)"
        }
        return """
            SELECT p.user_id FROM \(table) AS p
            WHERE p.app_id = \(app) AND p.room_id = \(room) AND \(position) IS NOT NULL AND \(condition)
                AND \(counted) AND \(countedRoom)
            """
    }

    /// One user's rooms with unread messages, most first (then by room id), at most parameter 3, each row
    /// `room_id, n, total` (total: over all the user's rooms). Parameters 1 the app id, 2 a JSON list of
    /// the one user id.
    package func roomsSQL(fromDitto: Bool) -> String {
        counts(fromDitto: fromDitto) + """

            SELECT room_id, n, CAST(sum(n) OVER () AS BIGINT) FROM counts WHERE n > 0
            ORDER BY n DESC, room_id LIMIT \(parameter(3))
            """
    }

    /// Each listed user's total, as rows `user_id, total` (a user without a counted position has none).
    /// Parameters 1 the app id, 2 a JSON list of user ids.
    package func totalsSQL(fromDitto: Bool) -> String {
        counts(fromDitto: fromDitto) + """

            SELECT user_id, CAST(sum(n) AS BIGINT) FROM counts GROUP BY user_id
            """
    }

    /// Adds a message to the index, or marks an indexed one archived (never back): parameters 1 app id,
    /// 2 room id, 3 message key, 4 sender id, 5 time (epoch MILLISECONDS), 6 archived, 7 the key of the
    /// message it replaces (NULL: none), whose time it takes when the index holds it from the same sender.
    /// Only a row of the same sender archives an indexed message (another user's delete changes nothing);
    /// a message replaces an archived row another sender's delete left before it arrived. A replacing
    /// message keeps the first message of its JS edit chain (`root_key`: the replaced message's own, or the
    /// replaced message's key), so a later edit or delete that names it reaches what was pushed.
    package var indexMessageSQL: String {
        let p = parameter
        let replaced =
            "o.app_id = \(p(1)) AND o.room_id = \(p(2)) AND o.message_key = \(p(7)) AND o.sender_id = \(p(4))"
        return """
            INSERT INTO room_messages (app_id, room_id, message_key, sender_id, created_at, archived, root_key)
            VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)),
                coalesce((SELECT o.created_at FROM room_messages AS o WHERE \(replaced)), \(p(5))), \(p(6)),
                coalesce((SELECT o.root_key FROM room_messages AS o WHERE \(replaced)), \(p(7))))
            ON CONFLICT (app_id, room_id, message_key) DO UPDATE SET archived = excluded.archived,
                sender_id = excluded.sender_id,
                created_at = CASE WHEN excluded.archived THEN room_messages.created_at ELSE excluded.created_at END,
                root_key = coalesce(room_messages.root_key, excluded.root_key)
                WHERE CASE WHEN room_messages.sender_id = excluded.sender_id THEN excluded.archived
                    ELSE NOT excluded.archived END
            """
    }

    /// The first message of the JS edit chain of parameters 1 app id, 2 room id, 3 message key
    /// (``indexMessageSQL``'s `root_key`, else the key itself), when the index holds the message.
    package var originalKeySQL: String {
        let p = parameter
        return """
            SELECT coalesce(root_key, message_key) FROM room_messages
            WHERE app_id = \(p(1)) AND room_id = \(p(2)) AND message_key = \(p(3))
            """
    }

    /// Moves a member's read position forward, to parameter 4 (epoch MILLISECONDS) when it is later, and
    /// returns the position: parameters 1 app id, 2 room id, 3 user id. No row: not a member.
    package var markReadSQL: String {
        let p = parameter
        let at = "CAST(\(p(4)) AS BIGINT)"
        return """
            UPDATE room_members SET read_at = CASE WHEN coalesce(read_at, joined_at) < \(at) THEN \(at)
                ELSE coalesce(read_at, joined_at) END
            WHERE app_id = \(p(1)) AND room_id = \(p(2)) AND user_id = \(p(3))
            RETURNING read_at
            """
    }
}
