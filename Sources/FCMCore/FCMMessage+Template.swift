import Foundation
import RelayCore

extension FCMMessage {
    /// ``encoded()`` of this message with its token replaced by a stand-in of the same length: every other
    /// byte of the body is the same for each token of that length (keys are sorted, so `message.token` is
    /// the body's last value), which lets one encoding serve a notification's whole fan-out
    /// (``encoded(token:template:)``). The texts are cut as for a real token of that length.
    /// - Throws: ``FCMMessageError`` as ``encoded()``.
    public func template() throws(FCMMessageError) -> Data {
        var standIn = self
        standIn.token = Self.standIn(length: token.value.utf8.count)
        return try standIn.encoded()
    }

    /// The body ``encoded()`` gives for `token` and the message `template` was made from (``template()``,
    /// with a token of the same length): the stand-in's bytes at the end, replaced by the token's. Tokens are
    /// ASCII letters, digits, `-`, `_` and `:`, which JSON writes as they are. Nil when `template` does not
    /// end with a stand-in of the token's length.
    public static func encoded(token: FCMRegistrationToken, template: Data) -> Data? {
        let value = Array(token.value.utf8)
        let tail = Array(standIn(length: value.count).value.utf8) + Array(#""}}"#.utf8)
        guard template.count > tail.count, template.suffix(tail.count).elementsEqual(tail) else { return nil }
        var body = template.prefix(template.count - tail.count)
        body.append(contentsOf: value)
        body.append(contentsOf: #""}}"#.utf8)
        return body
    }

    /// A token of `length` characters that no real one is mistaken for in a template's tail: zeros.
    private static func standIn(length: Int) -> FCMRegistrationToken {
        // Within FCMRegistrationToken.lengthRange, as `length` is a real token's.
        try! FCMRegistrationToken(parsing: String(repeating: "0", count: length))
    }
}
