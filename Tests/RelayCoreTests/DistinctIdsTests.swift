import RelayCore
import Testing

/// Ids are the same id only byte for byte: a list keeps each once, and two canonically equivalent spellings
/// (Swift's `==` calls them equal) are two ids.
@Suite struct DistinctIdsTests {
    @Test func eachIdOnceInOrderComparedAsBytes() {
        let precomposed = "jos\u{E9}", decomposed = "jose\u{301}"
        #expect(precomposed == decomposed, "Swift's == is canonical equivalence")
        #expect(!precomposed.isSameId(decomposed))
        let ids = ["bob", precomposed, "bob", decomposed, precomposed, "ann"].distinctIds()
        #expect(ids.count == 4)
        #expect(ids.map { Array($0.utf8) } == ["bob", precomposed, decomposed, "ann"].map { Array($0.utf8) })
    }
}
