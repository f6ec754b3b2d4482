import Foundation
import RelayCrypto
import Testing
import WebPushCore

@Suite struct TopicTests {
    @Test func aMessageIdBecomes32Base64URLCharactersOfItsHash() throws {
        let topic = Topic(messageId: "6f1c2d3e-message-id")
        #expect(topic.value.count == 32)
        #expect(
            topic.value == String(Digest.sha256(Data("6f1c2d3e-message-id".utf8)).base64URLEncodedString().prefix(32))
        )
        #expect(try Topic(validating: topic.value) == topic)
        #expect(Topic(messageId: "6f1c2d3e-message-id") == topic)
        #expect(Topic(messageId: "another") != topic)
    }

    @Test(arguments: ["", String(repeating: "a", count: 33), "has space", "a+b", "a/b", "a=b", "ünï"])
    func refusedTopics(value: String) {
        let error = #expect(throws: WebPushError.self) { try Topic(validating: value) }
        #expect(error?.code == .invalidTopic)
    }
}
