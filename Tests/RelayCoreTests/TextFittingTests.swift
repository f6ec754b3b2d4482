import Foundation
import RelayCore
import Testing

/// The cutting rule on a value of its own, beside ChatPayloadTests' APNs payloads.
@Suite struct TextFittingTests {
    struct Card: Encodable {
        var id: String
        var title: String?
        var body: String?

        func encoded() -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try! encoder.encode(self)
        }
    }

    static var texts: [WritableKeyPath<Card, String?>] { [\.body, \.title] }

    @Test func aValueThatFitsIsEncodedAsItIs() throws {
        let card = Card(id: "1", title: "t", body: "b")
        #expect(try TextFitting.fit(card, cutting: Self.texts, limit: 100) { $0.encoded() } == card.encoded())
    }

    @Test func theBodyIsCutFirstOnACharacterBoundaryAndEndsWithAnEllipsis() throws {
        let card = Card(id: "1", title: "Title", body: String(repeating: "😀", count: 100))
        let data = try TextFitting.fit(card, cutting: Self.texts, limit: 200) { $0.encoded() }
        #expect(data.count <= 200)
        let decoded = try JSONDecoder().decode([String: String].self, from: data)
        #expect(decoded["title"] == "Title")
        let body = try #require(decoded["body"])
        #expect(body.hasSuffix(TextFitting.ellipsis))
        #expect(body.dropLast().allSatisfy { $0 == "😀" })
        // The longest prefix: one more emoji (4 bytes) would not fit.
        #expect(data.count + 4 > 200)
    }

    @Test func whenTheBodyCannotFitTheTitleIsCutToo() throws {
        let card = Card(id: "1", title: String(repeating: "t", count: 50), body: String(repeating: "b", count: 50))
        let data = try TextFitting.fit(card, cutting: Self.texts, limit: 40) { $0.encoded() }
        let decoded = try JSONDecoder().decode([String: String].self, from: data)
        #expect(decoded["body"] == "")
        #expect(decoded["title"]?.hasSuffix(TextFitting.ellipsis) == true)
        #expect(data.count <= 40)
    }

    @Test func aValueTooLargeWithoutItsTextsSaysHowManyBytesItNeeds() {
        let card = Card(id: String(repeating: "i", count: 100), title: "t", body: "b")
        let error = #expect(throws: TextFitting.Overflow.self) {
            try TextFitting.fit(card, cutting: Self.texts, limit: 50) { $0.encoded() }
        }
        #expect(error?.minimumBytes == Card(id: card.id, title: "", body: "").encoded().count)
    }
}
