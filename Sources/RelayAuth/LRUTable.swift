/// A map of at most ``capacity`` entries that forgets the least recently used one to make room: a
/// dictionary whose entries are also linked in order of use, so a lookup, an insertion and an eviction each
/// cost O(1). Not synchronized: its owner serializes access.
struct LRUTable<Key: Hashable, Value> {
    private struct Node {
        var value: Value
        var older: Key?
        var newer: Key?
    }

    let capacity: Int
    private var nodes: [Key: Node] = [:]
    /// The least recently used key: evicted first.
    private var oldest: Key?
    /// The most recently used key.
    private var newest: Key?

    init(capacity: Int) {
        precondition(capacity > 0, "an LRUTable needs room for one entry")
        self.capacity = capacity
        nodes.reserveCapacity(min(capacity, 4096))
    }

    var count: Int { nodes.count }

    /// Whether `key` has an entry; does not count as a use.
    func contains(_ key: Key) -> Bool { nodes[key] != nil }

    /// Runs `body` on the value under `key`, made by `make` when there is none, and marks it the most recently
    /// used. A full table makes room by evicting, of its `candidates` least recently used entries, the oldest
    /// one `isIdle` says holds nothing, else the least recently used.
    mutating func update<Result>(
        _ key: Key,
        make: () -> Value,
        isIdle: (Key, Value) -> Bool,
        candidates: Int,
        _ body: (inout Value) -> Result
    ) -> Result {
        if nodes[key] != nil {
            unlink(key)
        } else {
            if nodes.count >= capacity, let oldest {
                var evicted = oldest
                var candidate: Key? = oldest
                for _ in 0..<candidates {
                    guard let looked = candidate else { break }
                    if isIdle(looked, nodes[looked]!.value) {
                        evicted = looked
                        break
                    }
                    candidate = nodes[looked]!.newer
                }
                unlink(evicted)
                nodes[evicted] = nil
            }
            nodes[key] = Node(value: make(), older: nil, newer: nil)
        }
        link(key)
        return body(&nodes[key]!.value)
    }

    /// Runs `body` on the value under `key` when there is one, without counting it as a use.
    mutating func updateIfPresent<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard nodes[key] != nil else { return nil }
        return body(&nodes[key]!.value)
    }

    /// Takes `key`'s node out of the order of use (it stays in the dictionary).
    private mutating func unlink(_ key: Key) {
        let node = nodes[key]!
        if let older = node.older { nodes[older]!.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]!.older = node.older } else { newest = node.older }
        nodes[key]!.older = nil
        nodes[key]!.newer = nil
    }

    /// Puts `key`'s node at the newest end of the order of use.
    private mutating func link(_ key: Key) {
        nodes[key]!.older = newest
        if let newest { nodes[newest]!.newer = key } else { oldest = key }
        newest = key
    }
}
