import Testing

@testable import RelayAuth

@Suite struct ExpiringCacheTests {
    @Test func entriesExpireAtTheirTime() {
        var cache = ExpiringCache<String, Int>(capacity: 10)
        cache.insert(1, for: "a", until: .seconds(10), now: .zero)
        #expect(cache.value(for: "a", now: .seconds(9)) == 1)
        #expect(cache.value(for: "a", now: .seconds(10)) == nil)
        #expect(cache.count == 0)
    }

    @Test func aFullCacheDropsExpiredEntriesFirstThenTheOldest() {
        var cache = ExpiringCache<Int, Int>(capacity: 10)
        for key in 0..<10 { cache.insert(key, for: key, until: .seconds(key < 3 ? 5 : 100), now: .zero) }
        cache.insert(10, for: 10, until: .seconds(100), now: .seconds(6))
        #expect(cache.count == 8)  // the three expired went
        #expect(cache.value(for: 3, now: .seconds(6)) == 3)
        cache.insert(11, for: 11, until: .seconds(100), now: .seconds(6))
        cache.insert(12, for: 12, until: .seconds(100), now: .seconds(6))
        #expect(cache.count == 10)
        cache.insert(13, for: 13, until: .seconds(100), now: .seconds(6))
        // Nothing expired: the oldest tenth (key 3) made room.
        #expect(cache.count == 10)
        #expect(cache.value(for: 3, now: .seconds(6)) == nil)
        #expect(cache.value(for: 4, now: .seconds(6)) == 4)
        #expect(cache.value(for: 13, now: .seconds(6)) == 13)
    }

    @Test func replacingAKeyNeedsNoRoom() {
        var cache = ExpiringCache<Int, Int>(capacity: 2)
        cache.insert(1, for: 1, until: .seconds(9), now: .zero)
        cache.insert(2, for: 2, until: .seconds(9), now: .zero)
        cache.insert(3, for: 2, until: .seconds(9), now: .zero)
        #expect(cache.value(for: 1, now: .zero) == 1)
        #expect(cache.value(for: 2, now: .zero) == 3)
    }
}
