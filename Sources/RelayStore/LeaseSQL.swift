/// The `delivery_leases` SQL both engines share (``LeaseRun``): when a lease covers a delivery, what a
/// hand-back reads, and how a lease ends.
package enum LeaseSQL {
    /// Whether the lease row `lease` covers the delivery row `delivery` (both table aliases): the same app
    /// and due time, the id within the run, whatever the lease's expiry.
    package static func covers(lease: String, delivery: String) -> String {
        """
        \(delivery).app_id = \(lease).app_id AND \(delivery).next_attempt_at = \(lease).next_attempt_at
            AND \(delivery).id BETWEEN \(lease).first_id AND \(lease).last_id
        """
    }

    /// The pending deliveries the live leases at `now` cover, by app: app id, count. `deliveries` names the
    /// deliveries table as alias `d` (with an engine's index hint, if it needs one).
    package static func leasedByAppSQL(now: String, deliveries: String = "deliveries AS d") -> String {
        """
        SELECT l.app_id, count(*) FROM delivery_leases AS l
        JOIN \(deliveries) ON d.status = 'pending' AND \(covers(lease: "l", delivery: "d"))
        WHERE l.lease_until >= \(now) GROUP BY l.app_id
        """
    }

    /// The leases of owner `owner` covering the pending deliveries whose ids `ids` selects (an SQL
    /// condition on `d.id`), with the ids they cover: app, due time, first and last id, expiry, delivery id.
    package static func heldSQL(ids: String, owner: String) -> String {
        """
        SELECT l.app_id, l.next_attempt_at, l.first_id, l.last_id, l.lease_until, d.id
        FROM deliveries AS d JOIN delivery_leases AS l ON \(covers(lease: "l", delivery: "d"))
        WHERE d.id \(ids) AND d.status = 'pending' AND l.lease_owner = \(owner)
        """
    }

    /// Ends the live leases of the owner in parameter 1, as `parameter` spells it (at a relay's start).
    package static func endOwnerSQL(parameter p: (Int) -> String) -> String {
        "UPDATE delivery_leases SET lease_until = \(LeaseRun.ended) WHERE lease_owner = \(p(1)) AND lease_until > \(LeaseRun.ended)"
    }

    /// Ends one lease (``LeaseRun/ended``), named by parameters 1 app id, 2 due time, 3 first id, 4 last id,
    /// 5 owner, as `parameter` spells them.
    package static func endSQL(parameter p: (Int) -> String) -> String {
        """
        UPDATE delivery_leases SET lease_until = \(LeaseRun.ended)
        WHERE app_id = \(p(1)) AND next_attempt_at = \(p(2)) AND first_id = \(p(3)) AND last_id = \(p(4))
            AND lease_owner = \(p(5))
        """
    }
}
