import RelayCore

/// Which connections give up their slot when the open connections near the total
/// (``HTTPServerConfiguration/maxConnections``), so that a new client is still let in: from the watermark
/// (90 % of the total) on, each new connection drops unfinished requests down to a little below it, the
/// slowest and oldest first. A request whose handler runs is never a candidate: only connections waiting for
/// a request's line and headers (an idle keep-alive connection among them), for the rest of a body, or for
/// their client to take an answer are (a slow reader, ranked by the bytes it acknowledged since its first
/// unacknowledged answer was queued).
struct LoadShedding: Sendable, Equatable {
    /// A connection that may be dropped.
    struct Candidate: Sendable, Equatable {
        /// The caller's name for the connection.
        var key: UInt
        /// When it began waiting for what it still owes (its connection's start, the end of its previous
        /// request, the end of its headers, or the first answer its client has not taken).
        var since: ContinuousClock.Instant
        /// Body bytes received, or answer bytes acknowledged, since then; 0 while headers are awaited.
        var bytes: Int
    }

    /// The connection limit in force.
    var limit: Int
    /// The pace whose shortfall ranks the candidates (``BodyPace/bytesPerSecond``).
    var bytesPerSecond: Int

    /// Open connections from which shedding starts: 90 % of the limit, at least 1.
    var watermark: Int { max(1, limit * 9 / 10) }

    /// Connections shed at once beyond the watermark: 1 % of the limit, so that the ranking is not redone
    /// for every new connection.
    var batch: Int { max(1, limit / 100) }

    /// How many to drop when `live` connections are open (not counting ones already being closed): none
    /// below the watermark, else down to ``batch`` below it.
    func excess(live: Int) -> Int { live < watermark ? 0 : live - watermark + batch }

    /// The keys of the `count` candidates to drop first at `now`: those furthest behind
    /// ``bytesPerSecond`` over the time they have held their slot (what they owe at that pace less what they
    /// sent), so a slow body goes before a fast one, and an old wait before a young one; equal shortfalls go
    /// oldest first.
    func victims(among candidates: [Candidate], count: Int, now: ContinuousClock.Instant) -> [UInt] {
        guard count > 0 else { return [] }
        let rate = Double(bytesPerSecond)
        let ranked = candidates.map { candidate in
            (candidate, shortfall: (now - candidate.since).timeInterval * rate - Double(candidate.bytes))
        }
        .sorted { left, right in
            left.shortfall != right.shortfall ? left.shortfall > right.shortfall : left.0.since < right.0.since
        }
        return ranked.prefix(count).map(\.0.key)
    }
}
