import Foundation
import RelayCore
import Testing

/// What a push shows of the texts and names a message carries, through the one rendering both platforms
/// use (``ChatMessage/shown``): controls and bidirectional overrides gone, texts keep their lines, names
/// are one line and small.
@Suite struct ShownTextTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var written: String
        /// As a room or sender name shows it (nil: the name counts as absent).
        var asName: String?
        /// As a message text shows it.
        var asText: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "plain", written: "Alice", asName: "Alice", asText: "Alice"),
        Case(name: "RLO override", written: "Ali\u{202E}gnp.exe", asName: "Alignp.exe", asText: "Alignp.exe"),
        Case(
            name: "embeddings, overrides and isolates",
            written: "\u{202A}a\u{202B}b\u{202C}c\u{202D}d\u{2066}e\u{2067}f\u{2068}g\u{2069}",
            asName: "abcdefg",
            asText: "abcdefg"
        ),
        Case(name: "line feeds", written: "Team\nA\n\nB", asName: "Team A  B", asText: "Team\nA\n\nB"),
        Case(name: "CR LF and CR", written: "a\r\nb\rc", asName: "a b c", asText: "a\nb\nc"),
        Case(
            name: "other line breaks",
            written: "a\u{0B}b\u{0C}c\u{85}d\u{2028}e\u{2029}f",
            asName: "a b c d e f",
            asText: "a\nb\nc\nd\ne\nf"
        ),
        Case(name: "tab", written: "a\tb", asName: "a b", asText: "a b"),
        Case(
            name: "C0 and C1 controls",
            written: "a\u{1}b\u{1B}[31mc\u{7F}d\u{9B}e",
            asName: "ab[31mcde",
            asText: "ab[31mcde"
        ),
        Case(name: "white space at a name's ends", written: "\n Alice\t\n", asName: "Alice", asText: "\n Alice \n"),
        Case(name: "ZWJ emoji", written: "👨‍👩‍👧 family", asName: "👨‍👩‍👧 family", asText: "👨‍👩‍👧 family"),
        Case(name: "ZWNJ", written: "می\u{200C}خواهم", asName: "می\u{200C}خواهم", asText: "می\u{200C}خواهم"),
        Case(
            name: "LRM and RLM",
            written: "a\u{200E}b\u{200F}c",
            asName: "a\u{200E}b\u{200F}c",
            asText: "a\u{200E}b\u{200F}c"
        ),
        Case(name: "nothing left", written: "\u{202E}\n\u{2066}", asName: nil, asText: "\n"),
    ]

    @Test(arguments: cases)
    func namesAndTextsShowClean(example: Case) throws {
        let message = ChatMessage(
            roomId: "r",
            senderId: "s",
            content: .text(example.written),
            roomName: example.written,
            senderName: example.written
        )
        let alert = message.shown
        #expect(alert.title == example.asName)
        #expect(alert.body == (example.asName.map { "\($0): " } ?? "") + example.asText)
        let caption = ChatMessage(roomId: "r", senderId: "s", content: .image(caption: example.written, imageURL: nil))
        let captionBody = try #require(caption.shown.body)
        #expect(captionBody == (example.asText.isBlank ? ShownMessage.imageBody : example.asText))
    }

    /// A name is cut by Characters and by bytes: 100 Characters each of dozens of combining marks stay small.
    @Test func aNameIsCutByBytesAsWellAsByCharacters() throws {
        let zalgo = String(repeating: "Z" + String(repeating: "\u{0336}\u{0489}", count: 40), count: 100)
        #expect(zalgo.count == 100 && zalgo.utf8.count > 16_000)
        let message = ChatMessage(roomId: "r", senderId: "s", content: .text("hi"), roomName: zalgo, senderName: zalgo)
        let alert = message.shown
        let title = try #require(alert.title)
        #expect(title.utf8.count <= ChatMessage.maxShownNameBytes)
        #expect(title.count <= ChatMessage.maxShownNameCharacters)
        #expect(title.hasSuffix(TextFitting.ellipsis) && zalgo.hasPrefix(title.dropLast()))
        #expect(alert.body == "\(title): hi")
    }

    /// A stored image URL the rule refuses (an older row) renders without the image.
    @Test func anImageURLTheRuleRefusesIsLeftOut() {
        let stored = ChatMessage(roomId: "r", senderId: "s", content: .image(caption: nil, imageURL: "https://127.1/x"))
        #expect(stored.shown.imageURL == nil)
        #expect(stored.shown.kind == .imageMessage)
    }
}
