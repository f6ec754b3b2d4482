import Foundation
import RelayCore
import Testing

/// The canonical-UUID check (the mock's apns-id check, the relay's ids in paths) agrees with a regular expression of the canonical form (NSRegularExpression)
/// on UUIDs and mutations of them. Foundation's `UUID(uuidString:)` is no oracle here: on Linux it parses
/// with sscanf and takes spaces and signs inside the hex fields.
@Suite struct CanonicalUUIDTests {
    static let canonical = try! NSRegularExpression(
        pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )

    static func matches(_ text: String) -> Bool {
        canonical.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test func agreesWithTheCanonicalPatternOnUUIDsAndTheirMutations() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFgG-{} ".utf8)
        for _ in 0..<2000 {
            var text = Array(UUID().uuidString.utf8)
            if Bool.random(using: &generator) { text = Array(String(decoding: text, as: UTF8.self).lowercased().utf8) }
            #expect(UUID.isCanonical(String(decoding: text, as: UTF8.self)))
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                text[Int.random(in: 0..<text.count, using: &generator)] = alphabet.randomElement(using: &generator)!
            }
            let mutated = String(decoding: text, as: UTF8.self)
            #expect(UUID.isCanonical(mutated) == Self.matches(mutated), "\(mutated)")
        }
        for text in ["", "1234", String(repeating: "a", count: 36), UUID().uuidString + "0"] {
            #expect(!UUID.isCanonical(text), "\(text)")
        }
    }

    /// `UUID(canonical:)` takes what the check takes and nothing else: not a NUL and what follows it (which
    /// Foundation's parser stops at), not braces.
    @Test func parsesOnlyTheCanonicalForm() throws {
        let uuid = UUID()
        #expect(UUID(canonical: uuid.lowercasedString) == uuid && UUID(canonical: uuid.uuidString) == uuid)
        for text in [uuid.lowercasedString + "\u{0}garbage", "{\(uuid.lowercasedString)}", " " + uuid.uuidString] {
            #expect(UUID(canonical: text) == nil, "\(text)")
        }
    }

    /// The lowercase text is Foundation's `uuidString` lowercased, alone or after a prefix (an apns-id header
    /// line), for random UUIDs and the extremes.
    @Test func writesTheLowercaseFormAloneAndAfterAPrefix() {
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let ones = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
        for uuid in [zero, ones] + (0..<200).map({ _ in UUID() }) {
            let expected = uuid.uuidString.lowercased()
            #expect(uuid.lowercasedString == expected)
            #expect(uuid.lowercasedString(after: "apns-id: ") == "apns-id: " + expected)
            #expect(uuid.lowercasedString(after: "") == expected)
        }
    }
}
