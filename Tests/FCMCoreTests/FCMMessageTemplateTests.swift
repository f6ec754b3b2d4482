import FCMCore
import Foundation
import RelayCore
import Testing

/// One template serves every token of its length, byte for byte what ``FCMMessage/encoded()`` gives.
@Suite struct FCMMessageTemplateTests {
    static func token(_ text: String) throws -> FCMRegistrationToken { try FCMRegistrationToken(parsing: text) }

    @Test(arguments: [
        FCMMessageTests.message(),
        FCMMessageTests.message(.text(String(repeating: "ü😀x", count: 2000))),
        FCMMessageTests.message(messageId: nil, roomName: nil),
        FCMMessageTests.message(privacy: true),
    ])
    func aTemplateWithAnyTokenOfItsLengthIsTheMessageEncoded(_ message: FCMMessage) throws {
        let template = try message.template()
        let length = message.token.value.utf8.count
        for text in [message.token.value, String(repeating: "a:B-_9", count: 40).prefix(length).description] {
            var other = message
            other.token = try Self.token(text)
            #expect(FCMMessage.encoded(token: other.token, template: template) == (try other.encoded()))
        }
    }

    @Test func aTokenOfAnotherLengthIsNotPutIntoTheTemplate() throws {
        let template = try FCMMessageTests.message().template()
        let longer = try Self.token(FCMMessageTests.token.value + "x")
        #expect(FCMMessage.encoded(token: longer, template: template) == nil)
        #expect(FCMMessage.encoded(token: FCMMessageTests.token, template: Data("{}".utf8)) == nil)
    }
}
