import Foundation
import Testing

@testable import APNsMock

/// The mock's own apns-id check agrees with a regular expression of the canonical form (NSRegularExpression)
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
            #expect(RequestValidator.isCanonicalUUID(String(decoding: text, as: UTF8.self)))
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                text[Int.random(in: 0..<text.count, using: &generator)] = alphabet.randomElement(using: &generator)!
            }
            let mutated = String(decoding: text, as: UTF8.self)
            #expect(RequestValidator.isCanonicalUUID(mutated) == Self.matches(mutated), "\(mutated)")
        }
        for text in ["", "1234", String(repeating: "a", count: 36), UUID().uuidString + "0"] {
            #expect(!RequestValidator.isCanonicalUUID(text), "\(text)")
        }
    }
}
