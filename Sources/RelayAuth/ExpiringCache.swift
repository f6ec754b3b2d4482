/// A bounded map whose entries expire: at most ``capacity`` entries; when full, expired ones go first, then
/// the oldest tenth. Times are monotonic readings (``RelayCore/TimeSource/monotonic``). Not synchronized:
/// its owner (an actor) serializes access.
struct ExpiringCache<Key: Hashable, Value> {
    private struct Entry {
        var value: Value
        var expiry: Duration
        var sequence: UInt64
    }

    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var nextSequence: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity > 0, "an ExpiringCache needs room for one entry")
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The value under `key` while it has not expired at `now`; an expired one is removed.
    mutating func value(for key: Key, now: Duration) -> Value? {
        guard let entry = entries[key] else { return nil }
        guard entry.expiry > now else {
            entries[key] = nil
            return nil
        }
        return entry.value
    }

    /// Keeps `value` under `key` until `expiry`, making room first when the cache is full.
    mutating func insert(_ value: Value, for key: Key, until expiry: Duration, now: Duration) {
        if entries[key] == nil, entries.count >= capacity { makeRoom(now: now) }
        entries[key] = Entry(value: value, expiry: expiry, sequence: nextSequence)
        nextSequence += 1
    }

    /// Drops what expired; if that frees nothing, the oldest tenth (at least one), so a stream of new keys
    /// costs one sort per tenth of the capacity, not one per insertion.
    private mutating func makeRoom(now: Duration) {
        entries = entries.filter { $0.value.expiry > now }
        guard entries.count >= capacity else { return }
        let drop = entries.count - capacity + max(1, capacity / 10)
        for (key, _) in entries.sorted(by: { $0.value.sequence < $1.value.sequence }).prefix(drop) {
            entries[key] = nil
        }
    }
}
