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
        var value = token.value
        let end = Array(#""}}"#.utf8)
        let length = value.utf8.count
        guard template.count > length + end.count else { return nil }
        let standInStart = template.count - end.count - length
        // Read in place and written with one copy: this runs once a push.
        let matches = template.withUnsafeBytes { bytes in
            bytes[standInStart..<(standInStart + length)].allSatisfy { $0 == standInByte }
                && bytes[(standInStart + length)...].elementsEqual(end)
        }
        guard matches else { return nil }
        var body = template
        let standIn = (template.startIndex + standInStart)..<(template.startIndex + standInStart + length)
        value.withUTF8 { body.replaceSubrange(standIn, with: $0) }
        return body
    }

    /// The byte every character of a stand-in token is.
    private static let standInByte = UInt8(ascii: "0")

    /// A token of `length` characters that no real one is mistaken for in a template's tail: zeros.
    private static func standIn(length: Int) -> FCMRegistrationToken {
        // Within FCMRegistrationToken.lengthRange, as `length` is a real token's.
        try! FCMRegistrationToken(parsing: String(repeating: Character(Unicode.Scalar(standInByte)), count: length))
    }
}
