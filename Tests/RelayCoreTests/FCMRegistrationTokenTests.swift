import RelayCore
import Testing

@Suite struct FCMRegistrationTokenTests {
    /// The shape of a real token: an instance id, a colon, and the APA91b... registration.
    static let token =
        "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_LkdZmN0pV7yT3sRqWbE9cJhGfAiOuK2lX8vY6nD5tC1zB4aS3eF"
        + "7gH0jI9kL2mN4oP6qR8sT0uV2wX4yZ6_-AbCdEfGhIj"

    @Test(arguments: [token, String(repeating: "a", count: 32), String(repeating: "Z9-_:", count: 204)])
    func tokensOfTheAlphabetAreTakenExactlyAsGiven(raw: String) throws {
        #expect(try FCMRegistrationToken(parsing: raw).value == raw)
    }

    @Test func caseIsKept() throws {
        let lower = try FCMRegistrationToken(parsing: Self.token.lowercased())
        let given = try FCMRegistrationToken(parsing: Self.token)
        #expect(given.value == Self.token)
        #expect(lower != given)
    }

    @Test(arguments: [
        ("", "empty"),
        (" " + token, "' '"),
        (token + "\n", "'\\n'"),
        (String(token.prefix(80)) + " " + String(token.dropFirst(80)), "' '"),
        (token + "=", "'='"),
        (token + "é", "'\\u{00E9}'"),
        ("ce8be6272e43e855", "32 to 1024"),
        (String(repeating: "a", count: 1025), "it is 1025"),
        ("{length = 32, bytes = 0xce8be627}", "'{'"),
    ])
    func otherTextIsRefusedWithWhatIsWrong(raw: String, named: String) {
        let error = #expect(throws: FCMRegistrationToken.ParseError.self) { try FCMRegistrationToken(parsing: raw) }
        #expect(error?.description.contains(named) == true, "\(error?.description ?? "")")
    }

    @Test func descriptionShowsOnlyTheSuffix() throws {
        let token = try FCMRegistrationToken(parsing: Self.token)
        #expect(token.suffix == String(Self.token.suffix(8)))
        #expect("\(token)" == "…" + token.suffix)
        #expect(!"\(token)".contains(String(Self.token.prefix(16))))
    }
}
