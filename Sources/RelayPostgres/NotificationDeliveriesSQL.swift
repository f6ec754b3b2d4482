/// A notification's deliveries as a range of `deliveries`' ids: the notification's row keeps its first and last
/// delivery id (both NULL when it has none, and then the range matches nothing), so a read by notification
/// seeks the primary key instead of an index of its own, which cost an entry per delivery at its insert and
/// again at its result (no such update is HOT: it changes `status`, in partial indexes' predicates). A
/// notification's deliveries are inserted by one statement, but others inserting at the same time draw ids
/// from the same sequence, so a range is still filtered by notification.
enum NotificationDeliveriesSQL {
    /// Whether `delivery` (an alias of `deliveries`) is one of `notification`'s (an alias of `notifications`).
    static func of(_ notification: String, delivery: String) -> String {
        """
        \(delivery).id BETWEEN \(notification).first_delivery_id AND \(notification).last_delivery_id \
        AND \(delivery).notification_id = \(notification).id
        """
    }

    /// Whether `delivery` (an alias of `deliveries`) is one of the notification whose id is `id` (an SQL
    /// expression such as `$1`): its range read by two scalar subqueries, each run once, bounding a range scan of
    /// the primary key.
    static func of(id: String, delivery: String) -> String {
        """
        \(delivery).id BETWEEN (SELECT r.first_delivery_id FROM notifications AS r WHERE r.id = \(id))
            AND (SELECT r.last_delivery_id FROM notifications AS r WHERE r.id = \(id))
            AND \(delivery).notification_id = \(id)
        """
    }

    /// Whether `delivery` (an alias of `deliveries`) is pending, in a form no partial index's predicate matches:
    /// for a read of a notification's range, which `deliveries_due` (pending rows by app and due time, not by
    /// id) would serve only by reading every pending row of every app, as it is planned whenever the
    /// statistics make pending rows look few.
    static func isPending(_ delivery: String) -> String {
        "CASE \(delivery).status WHEN 'pending' THEN true ELSE false END"
    }

    /// The id of the newest pending delivery of `notification` (an alias of `notifications`), NULL when none
    /// is: a scalar subquery that reads the range backward in the primary key, from its end, where a fan-out's
    /// deliveries wait longest (they are claimed in id order), so during one it stops at its first row. It
    /// reads back to the newest pending one: the whole range once none is, as counting it by status does, and
    /// nearly all of it while only a retry early in the range is left (as on SQLite).
    static func newestPending(of notification: String) -> String {
        """
        (SELECT d.id FROM deliveries AS d WHERE \(of(notification, delivery: "d")) AND \(isPending("d"))
            ORDER BY d.id DESC LIMIT 1)
        """
    }

    /// `insert` (a statement that inserts one notification's deliveries, after the common table expressions
    /// `with`, if any) as one that answers how many it inserted and their first and last id (NULL when none),
    /// for ``recordRange``: read from the inserted rows themselves, as no index holds a notification's.
    static func counted(_ insert: String, with: String = "") -> String {
        """
        WITH \(with.isEmpty ? "" : with + ",\n")inserted AS (
        \(insert)
        RETURNING id)
        SELECT count(*), min(id), max(id) FROM inserted
        """
    }

    /// Records notification $1's range, $2 to $3 (``counted(_:with:)``), in the transaction that inserted its
    /// deliveries.
    static let recordRange = "UPDATE notifications SET first_delivery_id = $2, last_delivery_id = $3 WHERE id = $1"
}
