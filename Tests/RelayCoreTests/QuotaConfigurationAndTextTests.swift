import Foundation
import Testing

@testable import RelayCore

/// The per-user quota settings (`apps[].limits`) and the message as the relay keeps it.
@Suite struct QuotaConfigurationAndTextTests {
    static let hash = String(repeating: "a", count: 64)

    static func load(limits: String) throws -> Configuration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        try Data(#"{"apps":[{"id":"a","topic":"t","apiKeySHA256":["\#(hash)"],"limits":\#(limits)}]}"#.utf8)
            .write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try Configuration.load(file: url.path, environment: [:])
    }

    @Test func theRatesAndDailyBudgetHaveDefaultsAndAreRead() throws {
        let defaults = try Self.load(limits: "{}").apps[0].limits
        #expect(defaults.writesPerMinute == 120 && defaults.writeBurst == 60)
        #expect(defaults.readsPerMinute == 120 && defaults.readBurst == 60)
        #expect(defaults.notificationsPerDay == 10_000 && defaults.storedBytesPerDay == 128 << 20)
        let set = try Self.load(
            limits: #"{"writesPerMinute":10,"writeBurst":5,"readsPerMinute":8,"readBurst":4,"#
                + #""notificationsPerDay":7,"storedBytesPerDay":4096}"#
        ).apps[0].limits
        #expect(set.writesPerMinute == 10 && set.writeBurst == 5)
        #expect(set.readsPerMinute == 8 && set.readBurst == 4)
        #expect(set.notificationsPerDay == 7 && set.storedBytesPerDay == 4096)
    }

    /// A bucket's rate and burst are 1...1000000, which keeps its micro-token arithmetic within 64 bits; the
    /// other limits need only be positive.
    @Test(arguments: [
        ("writesPerMinute", 0, "must be 1...1000000"), ("writeBurst", 0, "must be 1...1000000"),
        ("writeBurst", 9_223_372_036_855, "must be 1...1000000"),
        ("webhookBurst", 10_000_000_000_000, "must be 1...1000000"),
        ("webhooksPerMinute", 1_000_001, "must be 1...1000000"), ("notificationsPerDay", 0, "must be positive"),
        ("readsPerMinute", 0, "must be 1...1000000"), ("readBurst", 1_000_001, "must be 1...1000000"),
        ("storedBytesPerDay", 0, "must be positive"),
    ])
    func aLimitOutOfItsRangeIsRefused(key: String, value: Int, problem: String) {
        do {
            _ = try Self.load(limits: #"{"\#(key)":\#(value)}"#)
            Issue.record("expected a failure")
        } catch let error as Configuration.Invalid {
            #expect(error.problems.contains("apps[0].limits.\(key): \(problem)"), "\(error.problems)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aKeptMessageHoldsWhatAPushCanShowAndNoMore() {
        let text = String(repeating: "é", count: 10_000)
        let name = String(repeating: "👩‍👩‍👧", count: 500)
        let message = ChatMessage(
            roomId: "room",
            senderId: "alice",
            content: .text(text),
            roomName: String(repeating: "r", count: 1000),
            senderName: name
        )
        let kept = message.kept
        guard case .text(let keptText) = kept.content else {
            Issue.record("the kind changed")
            return
        }
        #expect(keptText.utf8.count <= ChatMessage.maxKeptTextBytes && keptText.hasSuffix("…"))
        #expect(keptText.utf8.count > ChatMessage.maxKeptTextBytes - 8)
        for shown in [kept.senderName, kept.roomName] {
            let shown = shown ?? ""
            #expect(shown.utf8.count <= ChatMessage.maxShownNameBytes)
            #expect(shown.count <= ChatMessage.maxShownNameCharacters && shown.hasSuffix("…"))
        }
        // The names a push shows are the same from the kept message as from the whole one.
        #expect(kept.shown.title == message.shown.title)
        #expect(kept.kept == kept)
        // A short message and an image's caption are kept whole; its URL is never cut.
        let short = ChatMessage(
            roomId: "room",
            senderId: "alice",
            content: .image(caption: "hi", imageURL: "https://a/b")
        )
        #expect(short.kept == short)
    }

    @Test func theOneCuttingRuleCountsCharactersAndBytes() {
        #expect(TextFitting.prefix("abc", maxCharacters: 3, maxBytes: 3) == "abc")
        #expect(TextFitting.prefix("abcd", maxCharacters: 3, maxBytes: 100) == "ab…")
        #expect(TextFitting.prefix("ééééé", maxCharacters: 100, maxBytes: 7) == "éé…")
        // A cluster is never split, however many bytes it has.
        #expect(TextFitting.prefix("e\u{301}e\u{301}x", maxCharacters: 100, maxBytes: 6) == "e\u{301}…")
    }
}
