import Foundation
import RelayCore
import RelayCrypto
import Testing

/// The identifier of a message's notification (`apns-collapse-id`, FCM `tag`): the DittoChat SDK's banner
/// identifier when it fits APNs' 64 bytes, else a SHA-256 form; compared byte for byte, since Swift's `==`
/// takes canonically equivalent text as equal.
@Suite struct NotificationIdentifierTests {
    static func identifier(_ messageId: String) -> String { ChatMessage.notificationIdentifier(messageId: messageId) }

    /// Ids whose banner identifier fits: the id follows `dittochat-msg-` byte for byte, case kept.
    @Test(arguments: [
        // A Swift UUID (`UUID().uuidString`): upper case, 50 bytes in all.
        ("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", 50),
        ("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", 50),
        ("msg-1", 19),
        // 50 bytes of id: exactly APNs' 64.
        (String(repeating: "a", count: 50), 64),
        // 25 Characters, 50 bytes.
        (String(repeating: "é", count: 25), 64),
        // The same text in NFC and NFD: two ids, two identifiers.
        ("jos\u{E9}", 19),
        ("jose\u{301}", 20),
        ("😀 chat/1", 25),
        // Space inside and at the start of the id: inside the header value.
        (" a b", 18),
    ])
    func theBannerIdentifierWhenItFits(messageId: String, bytes: Int) {
        let identifier = Self.identifier(messageId)
        #expect(Array(identifier.utf8) == Array("dittochat-msg-".utf8) + Array(messageId.utf8))
        #expect(identifier.utf8.count == bytes)
    }

    /// Ids over 50 bytes, or that an HTTP/2 header cannot carry as given: `dittochat-sha256-` and the first
    /// 47 hex digits of the SHA-256 of the id's bytes (the expected digests were computed apart from the
    /// relay).
    @Test(arguments: [
        (String(repeating: "a", count: 51), "bfc5fe0e360152ca98c50fab4ed7e3078c17debc2917740"),
        // 26 Characters, 52 bytes: the limit counts bytes.
        (String(repeating: "é", count: 26), "6f67d39a7b557270ff4232989c9dfd9bdbc89915ea8bd0a"),
        (String(repeating: "e\u{301}", count: 26), "cb339114ec6352359a90cc6b5c7c5bdb9e58ecda1dd0a00"),
        // The longest id the API takes.
        (String(repeating: "m", count: ChatMessage.maxIdBytes), "04e6003138b0493df4d5786ebd119fc9161eceffa9db542"),
        // Short, but no HTTP/2 header value: a space at the end, a control character.
        ("abc ", "5488613c42b0d34d60f7aa9e94be317a3ee102a2bbd91cc"),
        ("a\u{7F}b", "4ef992561c6efb5dd9dc8e156a4bf8d702ebceb36dbb86d"),
        ("x\ty", "50bfd0b417c89d1231220e22641dbf625cd46b59a260bff"),
    ])
    func aHashWhenTheBannerIdentifierIsTooLong(messageId: String, digits: String) {
        let identifier = Self.identifier(messageId)
        #expect(Array(identifier.utf8) == Array(("dittochat-sha256-" + digits).utf8))
        #expect(identifier.utf8.count == ChatMessage.notificationIdentifierMaxBytes)
        #expect(Self.identifier(messageId) == identifier)
    }

    /// Distinct long ids, including ids that differ only in their last byte or in normalization, get
    /// distinct identifiers; none equals the identifier of any id that fits, even of an id spelling another
    /// id's hash digits (a sender cannot steer its notification onto another's).
    @Test func distinctIdsGetDistinctIdentifiers() {
        let stem = String(repeating: "x", count: 60)
        var long = (0..<500).map { stem + String($0) }
        long += [String(repeating: "é", count: 26), String(repeating: "e\u{301}", count: 26)]
        let hashed = long.map { Array(Self.identifier($0).utf8) }
        #expect(Set(hashed).count == long.count)
        let prefix = "dittochat-sha256-"
        let spelled = long.map { String(Self.identifier($0).dropFirst(prefix.count)) }
        for (id, digits) in zip(long, spelled) {
            #expect(Self.identifier(digits) == "dittochat-msg-" + digits)
            #expect(Self.identifier(digits) != Self.identifier(id))
            #expect(Self.identifier(prefix + digits) != Self.identifier(id))
        }
    }

    /// A chat message has its id's identifier, and none without an id.
    @Test func aChatMessageHasItsIdsIdentifier() {
        var message = ChatMessage(roomId: "r", senderId: "a", content: .text("x"), messageId: "ABC")
        #expect(message.notificationIdentifier == "dittochat-msg-ABC")
        message.messageId = nil
        #expect(message.notificationIdentifier == nil)
    }
}
