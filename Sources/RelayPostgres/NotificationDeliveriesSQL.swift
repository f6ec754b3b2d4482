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

    /// Records notification $1's range in the transaction that inserted its deliveries, before it commits: they
    /// are all pending then, so the range's ends are two seeks of `deliveries_pending_by_notification`, one
    /// scalar subquery each (a row subquery of both would aggregate every entry between them).
    static let recordRange = """
        UPDATE notifications SET
            first_delivery_id = (SELECT min(id) FROM deliveries WHERE notification_id = $1 AND status = 'pending'),
            last_delivery_id = (SELECT max(id) FROM deliveries WHERE notification_id = $1 AND status = 'pending')
        WHERE id = $1
        """
}
