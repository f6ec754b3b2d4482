import Synchronization

/// Deliveries a claim took (or ended) in a row of its due order: one due time, ids `first` to `last` (epoch
/// MILLISECONDS and delivery ids). Between them, every pending row of the app at that due time was read by
/// that claim, so a lease of the run covers exactly the jobs it took. Both stores lease a run with one row
/// (`delivery_leases`): a pending delivery is leased while a live lease's run covers it, and a result moves a
/// delivery out of its run (it is no longer pending, or due later) without touching the lease.
package struct LeaseRun: Encodable, Hashable, Sendable {
    package var nextAttemptAt: Int64
    package var first: Int64
    package var last: Int64

    package init(nextAttemptAt: Int64, first: Int64, last: Int64) {
        (self.nextAttemptAt, self.first, self.last) = (nextAttemptAt, first, last)
    }

    /// The `lease_until` of a lease handed back: not deleted but ended at once, so that the next claim of the
    /// app, on whichever relay, drops it as it drops a lease that ran out, and so learns that deliveries
    /// behind its cursor are due again (``ClaimCursor``).
    package static let ended: Int64 = 0

    package func covers(nextAttemptAt: Int64, id: Int64) -> Bool {
        nextAttemptAt == self.nextAttemptAt && first <= id && id <= last
    }

    /// The runs that stay leased when the deliveries `ids` of this run are handed back: the others may still
    /// be in flight (a hand-back releases only the deliveries it names).
    package func removing(_ ids: Set<Int64>) -> [LeaseRun] {
        var pieces: [LeaseRun] = []
        var start = first
        for id in ids.filter({ first <= $0 && $0 <= last }).sorted() {
            if start < id { pieces.append(LeaseRun(nextAttemptAt: nextAttemptAt, first: start, last: id - 1)) }
            start = id + 1
        }
        if start <= last { pieces.append(LeaseRun(nextAttemptAt: nextAttemptAt, first: start, last: last)) }
        return pieces
    }
}

/// A live lease as a hand-back reads it: its app, its run, its expiry (epoch MILLISECONDS).
package struct HeldLease: Hashable, Sendable {
    package var appId: String
    package var run: LeaseRun
    package var until: Int64

    package init(appId: String, run: LeaseRun, until: Int64) {
        (self.appId, self.run, self.until) = (appId, run, until)
    }

    /// A lease and the delivery it covers from a row of ``LeaseSQL/heldSQL(ids:owner:)``.
    package static func covering(row: some StoredRow) throws -> (lease: HeldLease, id: Int64) {
        let run = LeaseRun(nextAttemptAt: try row.int64(1), first: try row.int64(2), last: try row.int64(3))
        return (HeldLease(appId: row.string(0), run: run, until: try row.int64(4)), try row.int64(5))
    }

    /// What a hand-back does to the leases that cover the deliveries it names (`covered`: each lease with
    /// one pending delivery of it handed back): each lease is replaced by the runs of its other deliveries.
    package static func handingBack(
        _ covered: [(lease: HeldLease, id: Int64)]
    ) -> [(
        lease: HeldLease, keeps: [LeaseRun]
    )] {
        Dictionary(grouping: covered, by: \.lease).map { lease, entries in
            (lease, lease.run.removing(Set(entries.map(\.id))))
        }
    }
}

/// Where an app's last claim stopped in the due order (`next_attempt_at`, `id`), and when the claims that
/// went on from it began (all epoch MILLISECONDS). Claims go on from it instead of reading past the rows in
/// flight again; a claim that drops an ended lease (run out, or handed back: ``LeaseRun/ended``) still
/// holding a pending delivery starts from the beginning instead, since that delivery may lie behind the
/// cursor.
package struct ClaimCursor: Sendable {
    package var nextAttemptAt: Int64
    package var id: Int64
    package var startedAt: Int64

    package init(nextAttemptAt: Int64, id: Int64, startedAt: Int64) {
        (self.nextAttemptAt, self.id, self.startedAt) = (nextAttemptAt, id, startedAt)
    }

    /// `cursor` if a claim at `now` may still go on from it: it is dropped when time went back past it or
    /// past its start, and once it is a lease old, so that rows that came in behind it (committed late, or due
    /// earlier than rows already read) are found within a lease.
    package static func live(_ cursor: ClaimCursor?, now: Int64, leaseSeconds: Int) -> ClaimCursor? {
        cursor.flatMap {
            $0.nextAttemptAt <= now && $0.startedAt <= now && now - $0.startedAt <= Int64(leaseSeconds) * 1000
                ? $0 : nil
        }
    }

    /// The cursor after a claim that began at `now` read the due row at (`nextAttemptAt`, `id`).
    package static func after(_ cursor: ClaimCursor?, nextAttemptAt: Int64, id: Int64, now: Int64) -> ClaimCursor {
        ClaimCursor(nextAttemptAt: nextAttemptAt, id: id, startedAt: cursor?.startedAt ?? now)
    }
}

/// Each app's ``ClaimCursor``, shared by the connections of one relay: whichever of them claims next goes on
/// from where the relay's last claim of the app stopped (a cursor per connection would lag behind the others'
/// claims and read past their rows in flight again).
package final class ClaimCursors: Sendable {
    private let cursors = Mutex<[String: ClaimCursor]>([:])

    package init() {}

    package subscript(appId: String) -> ClaimCursor? {
        get { cursors.withLock { $0[appId] } }
        set { cursors.withLock { $0[appId] = newValue } }
    }

    package func removeAll() {
        cursors.withLock { $0.removeAll() }
    }
}
