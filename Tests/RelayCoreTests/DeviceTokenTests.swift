import RelayCore
import Testing

@Suite struct DeviceTokenTests {
    static let hex = "ce8be6272e43e8554a5d1ed0ab0a6d2ce4b4ce1a2ed1f6ae3b9a2c6a94f1e2d3"

    @Test(arguments: [
        hex,
        hex.uppercased(),
        "<ce8be627 2e43e855 4a5d1ed0 ab0a6d2c e4b4ce1a 2ed1f6ae 3b9a2c6a 94f1e2d3>",
        "  ce8be6272e43e855\n4a5d1ed0ab0a6d2c e4b4ce1a2ed1f6ae\t3b9a2c6a94f1e2d3 \n",
    ])
    func recoverableFormsNormalizeToLowercaseHex(raw: String) throws {
        #expect(try DeviceToken(parsing: raw).hex == Self.hex)
    }

    @Test(arguments: [
        "{length = 32, bytes = 0xce8be627 2e43e855 ... 3b9a2c6a 94f1e2d3 }",
        "32 bytes",
        "fcm:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx",
        "abc",
        "",
        "abcd",
        String(repeating: "ab", count: 257),
        "zz" + String(hex.dropFirst(2)),
    ])
    func unrecoverableFormsAreRefused(raw: String) {
        #expect(throws: DeviceToken.ParseError.self) { try DeviceToken(parsing: raw) }
    }

    /// The longest token in its most spread-out recoverable form is read; a text past four bytes a token
    /// byte is refused by its length, unread.
    @Test func aTextFarLongerThanAnyTokenIsRefusedByItsLength() throws {
        let groups = Array(repeating: "ABCDEF01", count: 64)
        let spread = "<" + groups.joined(separator: " ") + ">"
        #expect(try DeviceToken(parsing: spread).hex == groups.joined().lowercased())
        let error = #expect(throws: DeviceToken.ParseError.self) {
            try DeviceToken(parsing: String(repeating: "1", count: 64000))
        }
        #expect(error?.description.hasSuffix("it is 64000 characters long") == true)
    }

    @Test func descriptionShowsOnlyTheSuffix() throws {
        let token = try DeviceToken(parsing: Self.hex)
        #expect(token.suffix == "94f1e2d3")
        #expect(!"\(token)".contains(String(Self.hex.prefix(16))))
    }
}
